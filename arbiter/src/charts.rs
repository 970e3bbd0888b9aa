//! PNG charts for reports (`dojo plot`, a tournament's `ratings.png`): plotters' bitmap
//! backend with the one font this repository ships (`arbiter/assets`, with its licence), so
//! nothing depends on the machine's fonts.
//!
//! What a run's figures show is laid out in `dojo_metrics::charts`: one concept in two
//! layers, hence one name.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// Why a chart was not drawn. A wrapped error's text is part of the message, not also its
/// `source()`, so that `dojo`'s `{:#}` does not print it twice.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// No panel of the chart at `path` has a point.
    #[error("{}: nothing to plot", .path.display())]
    NothingToPlot { path: PathBuf },
    /// A ratings or scores chart with no player that has a value.
    #[error("no rated player to plot")]
    NoRatedPlayer,
    /// The plotting library failed (its errors are generic over the backend: kept as text).
    #[error("cannot draw {}: {error}", .path.display())]
    Draw { path: PathBuf, error: String },
    /// The finished PNG cannot be moved into place.
    #[error("cannot write {}: {error}", .path.display())]
    Write { path: PathBuf, error: std::io::Error },
}

impl ChartError {
    /// [`ChartError::Draw`] of the chart at `path`, from the plotting library's error.
    pub(crate) fn draw(path: &Path) -> impl Fn(&dyn std::fmt::Display) -> ChartError + '_ {
        move |error| ChartError::Draw { path: path.to_path_buf(), error: error.to_string() }
    }

    /// Moves the PNG written at `tmp` to `path`.
    pub(crate) fn rename(tmp: &Path, path: &Path) -> Result<(), ChartError> {
        std::fs::rename(tmp, path).map_err(|error| ChartError::Write { path: path.to_path_buf(), error })
    }
}

const FONT: &[u8] = include_bytes!("../assets/DejaVuSansMono.ttf");
/// The family name charts draw text in.
pub const FONT_NAME: &str = "dojo-mono";

/// Series colours, in turn: enough that a 2584 run's reach chart (seven tiles, and more
/// once reached) does not repeat one before its eighth line. A tournament's curve is the
/// first; its reference lines take the others.
pub const COLOURS: [RGBColor; 9] = [
    RGBColor(30, 90, 200),
    RGBColor(200, 60, 40),
    RGBColor(40, 140, 60),
    RGBColor(150, 80, 190),
    RGBColor(210, 140, 20),
    RGBColor(20, 150, 160),
    RGBColor(120, 120, 120),
    RGBColor(220, 90, 160),
    RGBColor(110, 70, 30),
];

/// Makes [`FONT_NAME`] drawable (once per process).
pub fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if register_font(FONT_NAME, FontStyle::Normal, FONT).is_err() {
            // The font is compiled in; a failure here is a broken build, not bad input.
            tracing::error!("the chart font in arbiter/assets does not load");
        }
    });
}

/// One line of a panel, or its points alone.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// Dots, not a line: for events (gating decisions) rather than a curve.
    pub dots: bool,
}

impl Series {
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.into(), points, dots: false }
    }
    pub fn dots(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.into(), points, dots: true }
    }
}

/// One chart of a figure: its series share the y axis.
pub struct Panel {
    pub y_desc: String,
    pub series: Vec<Series>,
}

/// An axis's span: (from, to).
type Span = (f64, f64);

/// The x and y spans that hold every point, with a margin; None without points.
fn ranges(panel: &Panel) -> Option<(Span, Span)> {
    let points = panel.series.iter().flat_map(|s| s.points.iter()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in points {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        return None;
    }
    let pad = |lo: f64, hi: f64| {
        // A constant series gets a band around it of a tenth of its size (1 around 0).
        let m = if hi > lo {
            (hi - lo) * 0.05
        } else if lo != 0.0 {
            lo.abs() * 0.1
        } else {
            1.0
        };
        (lo - m, hi + m)
    };
    Some((pad(x0, x1), pad(y0, y1)))
}

/// Draws `panels` stacked in one PNG at `path` (a temporary file, then renamed), sharing
/// the x axis's description. Panels without points are left out; none with points is an
/// error.
pub fn draw_panels(path: &Path, title: &str, x_desc: &str, panels: &[Panel]) -> Result<(), ChartError> {
    let drawn: Vec<(&Panel, (Span, Span))> = panels.iter().filter_map(|p| ranges(p).map(|r| (p, r))).collect();
    if drawn.is_empty() {
        return Err(ChartError::NothingToPlot { path: path.to_path_buf() });
    }
    let err = ChartError::draw(path);
    png(path, (1000, 60 + 320 * drawn.len() as u32), |root| {
        let root = root.titled(title, (FONT_NAME, TITLE_SIZE)).map_err(|e| err(&e))?;
        for (area, (panel, (x, y))) in root.split_evenly((drawn.len(), 1)).iter().zip(&drawn) {
            let axes = Axes { x_desc, y_desc: &panel.y_desc, y_label: &short_number };
            let mut chart = axes.chart(path, area, None, (*x, *y))?;
            for (k, series) in panel.series.iter().enumerate() {
                let colour = COLOURS[k % COLOURS.len()];
                let drawn = if series.dots {
                    chart.draw_series(series.points.iter().map(|&p| Circle::new(p, 4, colour.filled())))
                } else {
                    // A thick line through hundreds of jagged points draws miter spikes past
                    // the axes at every sharp turn: dense series get a thin one.
                    let width = if series.points.len() > 200 { 1 } else { 2 };
                    chart.draw_series(LineSeries::new(series.points.iter().copied(), colour.stroke_width(width)))
                };
                drawn.map_err(|e| err(&e))?.label(series.name.as_str()).legend(legend_mark(colour));
            }
            legend(path, &mut chart, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    })
}

/// The house style's sizes: the title's, the tick labels' and the axis descriptions' text.
const TITLE_SIZE: u32 = 22;
const LABEL_SIZE: u32 = 14;
const DESC_SIZE: u32 = 16;

/// A chart's drawing area: a PNG, as the bitmap backend draws it.
pub(crate) type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;
/// A chart on an [`Area`] with two linear axes.
pub(crate) type Chart<'a, 'b> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws a `size` PNG at `path` with `paint` on a white background: into a temporary file,
/// then renamed, so a chart half drawn never replaces a whole one.
pub(crate) fn png(
    path: &Path,
    size: (u32, u32),
    paint: impl FnOnce(&Area<'_>) -> Result<(), ChartError>,
) -> Result<(), ChartError> {
    register();
    let tmp = path.with_extension("tmp.png");
    {
        let err = ChartError::draw(path);
        let root = BitMapBackend::new(&tmp, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        paint(&root)?;
        root.present().map_err(|e| err(&e))?;
    }
    ChartError::rename(&tmp, path)
}

/// The axes of a chart: their descriptions and how the y axis's values are written.
pub(crate) struct Axes<'a> {
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    pub y_label: &'a dyn Fn(f64) -> String,
}

impl Axes<'_> {
    /// A chart over `x` × `y` on `area` of the chart at `path`, its caption (if any) above,
    /// its mesh drawn in the house style: x ticks as whole numbers, light grid lines.
    pub(crate) fn chart<'a, 'b>(
        &self,
        path: &Path,
        area: &'a Area<'b>,
        caption: Option<&str>,
        (x, y): (Span, Span),
    ) -> Result<Chart<'a, 'b>, ChartError> {
        let err = ChartError::draw(path);
        let mut builder = ChartBuilder::on(area);
        if let Some(caption) = caption {
            builder.caption(caption, (FONT_NAME, TITLE_SIZE));
        }
        let mut chart = builder
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(68)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc)
            .y_desc(self.y_desc)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| (self.y_label)(*y))
            .label_style((FONT_NAME, LABEL_SIZE))
            .axis_desc_style((FONT_NAME, DESC_SIZE))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(|e| err(&e))?;
        Ok(chart)
    }
}

/// A series' mark in the legend: a short line of its colour.
pub(crate) fn legend_mark(colour: RGBColor) -> impl Fn((i32, i32)) -> PathElement<(i32, i32)> {
    move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2))
}

/// Draws the legend of `chart` (the chart at `path`), boxed, at `position`.
pub(crate) fn legend<'a, 'b: 'a>(
    path: &Path,
    chart: &mut Chart<'a, 'b>,
    position: SeriesLabelPosition,
) -> Result<(), ChartError> {
    chart
        .configure_series_labels()
        .label_font((FONT_NAME, LABEL_SIZE))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(position)
        .draw()
        .map_err(|e| ChartError::draw(path)(&e))
}

/// An axis label: few digits whatever the scale (0.00012 as 1.2e-4, 0.012, 1.5, 350, 12k).
fn short_number(y: f64) -> String {
    let a = y.abs();
    if a >= 10_000.0 {
        format!("{:.0}k", y / 1000.0)
    } else if a >= 100.0 || y == 0.0 {
        format!("{y:.0}")
    } else if a >= 1.0 {
        format!("{y:.1}")
    } else if a >= 0.01 {
        format!("{y:.3}")
    } else {
        format!("{y:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_with_points_are_drawn_and_empty_ones_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.png");
        let line = |name: &str, k: f64| Series::line(name, (0..50).map(|i| (i as f64, k * i as f64)).collect());
        let panels = [
            Panel { y_desc: "loss".into(), series: vec![line("a", 1.0), line("b", 0.5)] },
            Panel { y_desc: "nothing".into(), series: vec![Series::line("c", vec![])] },
            Panel { y_desc: "rate".into(), series: vec![line("d", 100.0), Series::dots("e", vec![(3.0, 7.0)])] },
        ];
        draw_panels(&path, "t", "step", &panels).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        // Two panels drawn, 320 pixels each, under a 60-pixel title.
        assert_eq!(u32::from_be_bytes(bytes[20..24].try_into().unwrap()), 60 + 2 * 320);
        let empty = [Panel { y_desc: "x".into(), series: vec![] }];
        assert!(draw_panels(&path, "t", "step", &empty).unwrap_err().to_string().ends_with("nothing to plot"));
        assert_eq!(
            (short_number(12_345.0), short_number(350.0), short_number(1.5), short_number(0.0123)),
            ("12k".into(), "350".into(), "1.5".into(), "0.012".into())
        );
    }
}
