//! Prometheus's classic text format (0.0.4), what `promtool check metrics` and every scraper
//! read, from a `prometheus-client` registry: the learner's and the workers' `/metrics`.

use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;

/// The `Content-Type` of a page [`render`] writes.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The page Prometheus scrapes.
pub fn render(registry: &Registry) -> String {
    let mut page = String::new();
    encode(&mut page, registry).expect("writing to a String cannot fail");
    openmetrics_to_text(&page)
}

/// The client library writes OpenMetrics, where a counter family `x` has samples `x_total`;
/// the classic text format names the family `x_total` too, and has no `# EOF`.
fn openmetrics_to_text(page: &str) -> String {
    let counters: Vec<&str> =
        page.lines().filter_map(|l| l.strip_prefix("# TYPE ")?.strip_suffix(" counter")).collect();
    let mut out = String::with_capacity(page.len());
    for line in page.lines() {
        if line == "# EOF" {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters.contains(&name).then(|| format!("{prefix}{name}_total {tail}"))
        });
        out.push_str(renamed.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::metrics::counter::Counter;
    use prometheus_client::metrics::gauge::Gauge;

    #[test]
    fn counters_are_named_as_their_samples_and_there_is_no_eof() {
        let mut registry = Registry::with_prefix("x");
        let games = Counter::<u64>::default();
        games.inc_by(3);
        let version = Gauge::<i64>::default();
        version.set(7);
        registry.register("games", "Games", games);
        registry.register("model_version", "Version", version);
        let page = render(&registry);
        assert_eq!(
            page,
            "# HELP x_games_total Games.\n# TYPE x_games_total counter\nx_games_total 3\n\
             # HELP x_model_version Version.\n# TYPE x_model_version gauge\nx_model_version 7\n"
        );
    }
}
