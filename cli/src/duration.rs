//! Durations as people type them: `90s`, `20m`, `1h30m`, `2h`, or plain seconds; and a
//! number of seconds, fractions allowed (`--grace-period 2.5`).

use std::time::Duration;

pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    if let Ok(secs) = t.parse::<u64>() {
        return Ok(Duration::from_secs(secs));
    }
    let bad = || format!("bad duration {text:?}: expected e.g. 90s, 20m, 1h30m");
    let mut total = 0u64;
    let mut number = String::new();
    for c in t.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let n: u64 = number.parse().map_err(|_| bad())?;
        number.clear();
        total += n * match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(bad()),
        };
    }
    if !number.is_empty() || total == 0 {
        return Err(bad());
    }
    Ok(Duration::from_secs(total))
}

/// A clap value parser: seconds, at least 0, fractions allowed.
pub fn parse_seconds(text: &str) -> Result<Duration, String> {
    let secs: f64 = text.trim().parse().map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(secs).map_err(|_| format!("{text:?} is not a number of seconds"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("20m"), Ok(Duration::from_secs(1200)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("45"), Ok(Duration::from_secs(45)));
        assert_eq!(parse_duration("2x").unwrap_err(), "bad duration \"2x\": expected e.g. 90s, 20m, 1h30m");
        assert!(parse_duration("m").is_err());
        assert!(parse_duration("10m5").is_err());
    }

    #[test]
    fn seconds() {
        assert_eq!(parse_seconds("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(parse_seconds("0"), Ok(Duration::ZERO));
        for bad in ["-1", "inf", "NaN", "ten"] {
            assert_eq!(parse_seconds(bad).unwrap_err(), format!("{bad:?} is not a number of seconds"));
        }
    }
}
