//! Tuple layouts: which cells each tuple reads, and where those cells lie under the board's
//! 8 isomorphisms (precomputed once, so evaluating a board is table lookups only).

use dojo_game::sliding::map_cell;

/// At most this many tuples in a layout (a file header is checked against it).
pub const MAX_TUPLES: usize = 16;
/// At most this many cells in a tuple.
pub const MAX_TUPLE_LEN: usize = 8;
/// At most this many weights in one tuple's table (2^28 f32 = 1 GiB).
pub const MAX_TABLE_LEN: usize = 1 << 28;
/// Isomorphisms of the 4×4 board: 4 rotations, each with or without a mirror.
pub const ISOMORPHISMS: usize = 8;

/// A layout no network can have.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    #[error("a layout has 1..={MAX_TUPLES} tuples, not {0}")]
    TupleCount(usize),
    #[error("tuple {tuple} has {cells} cells; a tuple has 1..={MAX_TUPLE_LEN}")]
    TupleLen { tuple: usize, cells: usize },
    #[error("tuple {tuple} names cell {cell}; cells are 0..16")]
    NoSuchCell { tuple: usize, cell: u8 },
    #[error("tuple {tuple} ({cells:?}) names a cell twice")]
    CellTwice { tuple: usize, cells: Vec<u8> },
    /// A table of `radix` slots a cell over `cells` cells would be over [`MAX_TABLE_LEN`].
    #[error("tuple {tuple} ({cells} cells, {radix} slots each) needs more than {MAX_TABLE_LEN} weights")]
    TableTooLarge { tuple: usize, cells: usize, radix: usize },
}

/// The cells (0..16, row-major, 0 top left) each tuple reads, in the order that makes its
/// table index: the first cell is the most significant digit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    tuples: Vec<Vec<u8>>,
}

impl Layout {
    /// Seed 002's four 6-tuples: two straight (rows 0–1 and 1–2, as 4 + 2 cells) and two
    /// 2×3 boxes. With their 8 isomorphisms each they cover every line and corner shape.
    pub fn seed002() -> Layout {
        Layout {
            tuples: vec![
                vec![0, 1, 2, 3, 4, 5],
                vec![4, 5, 6, 7, 8, 9],
                vec![0, 1, 2, 4, 5, 6],
                vec![4, 5, 6, 8, 9, 10],
            ],
        }
    }

    /// A layout from its tuples: 1..=16 tuples of 1..=8 distinct cells in 0..16.
    pub fn new(tuples: Vec<Vec<u8>>) -> Result<Layout, LayoutError> {
        if tuples.is_empty() || tuples.len() > MAX_TUPLES {
            return Err(LayoutError::TupleCount(tuples.len()));
        }
        for (tuple, t) in tuples.iter().enumerate() {
            if t.is_empty() || t.len() > MAX_TUPLE_LEN {
                return Err(LayoutError::TupleLen { tuple, cells: t.len() });
            }
            if let Some(&cell) = t.iter().find(|&&c| c >= 16) {
                return Err(LayoutError::NoSuchCell { tuple, cell });
            }
            if (1..t.len()).any(|k| t[..k].contains(&t[k])) {
                return Err(LayoutError::CellTwice { tuple, cells: t.clone() });
            }
        }
        Ok(Layout { tuples })
    }

    pub fn tuples(&self) -> &[Vec<u8>] {
        &self.tuples
    }

    /// The number of weights of each tuple's table with `radix` slots a cell, or why it is
    /// too big.
    pub fn table_lens(&self, radix: usize) -> Result<Vec<usize>, LayoutError> {
        self.tuples
            .iter()
            .enumerate()
            .map(|(tuple, t)| {
                radix.checked_pow(t.len() as u32).filter(|&n| n <= MAX_TABLE_LEN).ok_or(LayoutError::TableTooLarge {
                    tuple,
                    cells: t.len(),
                    radix,
                })
            })
            .collect()
    }
}

/// One tuple under one isomorphism: the cells it reads there, in digit order, and where its
/// tuple's table starts in the network's weights.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Feature {
    pub cells: [u8; MAX_TUPLE_LEN],
    pub len: u8,
    pub offset: usize,
}

/// The features of `layout` (tuple by tuple, 8 isomorphisms each, weights shared within a
/// tuple) and the total number of weights, for tables of `radix` slots a cell.
///
/// Seed 002 rotates an index board instead of the tuple; mapping each cell through all 8
/// isometries of the square gives the same set of cell lists (the isometries are a group).
pub(crate) fn features(layout: &Layout, radix: usize) -> Result<(Vec<Feature>, usize), LayoutError> {
    let lens = layout.table_lens(radix)?;
    let mut out = Vec::with_capacity(layout.tuples.len() * ISOMORPHISMS);
    let mut offset = 0usize;
    for (t, len) in layout.tuples.iter().zip(lens) {
        for s in 0..ISOMORPHISMS {
            let mut cells = [0u8; MAX_TUPLE_LEN];
            for (k, &c) in t.iter().enumerate() {
                cells[k] = map_cell(s, c as usize) as u8;
            }
            out.push(Feature { cells, len: t.len() as u8, offset });
        }
        offset += len;
    }
    Ok((out, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_layout_maps_each_tuple_to_eight_distinct_cell_lists() {
        let (f, total) = features(&Layout::seed002(), 16).unwrap();
        assert_eq!(f.len(), 32);
        assert_eq!(total, 4 << 24);
        for t in 0..4 {
            let lists: std::collections::HashSet<Vec<u8>> =
                f[t * 8..t * 8 + 8].iter().map(|x| x.cells[..6].to_vec()).collect();
            assert_eq!(lists.len(), 8, "tuple {t}");
            assert!(f[t * 8..t * 8 + 8].iter().all(|x| x.offset == t << 24));
        }
        // Isomorphism 0 is the tuple itself; the first tuple's mirror image reads the top
        // row from the right.
        assert_eq!(f[0].cells[..6], [0, 1, 2, 3, 4, 5]);
        assert_eq!(f[1].cells[..6], [3, 2, 1, 0, 7, 6]);
    }

    #[test]
    fn bad_layouts_say_what_is_wrong() {
        for (tuples, want) in [
            (vec![], "1..=16 tuples, not 0"),
            (vec![vec![]], "tuple 0 has 0 cells"),
            (vec![vec![0, 16]], "names cell 16"),
            (vec![vec![1, 2, 1]], "names a cell twice"),
            (vec![vec![0; 9]], "tuple 0 has 9 cells"),
        ] {
            let err = Layout::new(tuples).unwrap_err().to_string();
            assert!(err.contains(want), "{err}");
        }
        let big = Layout::new(vec![(0..8).collect()]).unwrap();
        assert!(big.table_lens(19).unwrap_err().to_string().contains("needs more than"));
    }
}
