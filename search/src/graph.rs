//! What the searches over a graph of positions store alike: nodes in one `Vec`, each node's
//! edges one block of another (`first_edge..first_edge + num_edges`), an edge naming the node
//! it leads to once taken, and a table from a position's hash to its node, so that positions
//! reached by different move orders share one node. The network's PUCT search
//! ([`super::puct`]) and the rollout MCTS in graph mode ([`super::mcts`]) both keep what a new
//! root reaches by [`keep_reachable`].

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

/// An edge not taken yet, or no node.
pub(crate) const NONE: u32 = u32::MAX;

/// Zobrist hashes are already uniformly mixed: hashing them again is wasted time.
#[derive(Default)]
pub(crate) struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// A map keyed by positions' hashes.
pub(crate) type HashIndex<V> = HashMap<u64, V, BuildHasherDefault<IdentityHasher>>;

/// A node of a graph search: its position's hash and its block of edges.
pub(crate) trait GraphNode: Clone {
    fn hash(&self) -> u64;
    fn edges(&self) -> Range<usize>;
    fn set_first_edge(&mut self, first: u32);
}

/// An edge of a graph search: the node it leads to, [`NONE`] until taken.
pub(crate) trait GraphEdge: Copy {
    fn child(&self) -> u32;
    fn set_child(&mut self, child: u32);
}

/// Implements [`GraphNode`] and [`GraphEdge`] for a search's node and edge types, whose
/// fields have the same names in every search (`hash`, `first_edge`, `num_edges`; `child`).
macro_rules! graph_storage {
    ($node:ty, $edge:ty) => {
        impl $crate::graph::GraphNode for $node {
            fn hash(&self) -> u64 {
                self.hash
            }
            #[inline]
            fn edges(&self) -> std::ops::Range<usize> {
                self.first_edge as usize..(self.first_edge + self.num_edges) as usize
            }
            fn set_first_edge(&mut self, first: u32) {
                self.first_edge = first;
            }
        }

        impl $crate::graph::GraphEdge for $edge {
            fn child(&self) -> u32 {
                self.child
            }
            fn set_child(&mut self, child: u32) {
                self.child = child;
            }
        }
    };
}
pub(crate) use graph_storage;

/// Copies the subgraph reachable from `node` into fresh storage, `node` becoming node 0, and
/// makes `table` (where the search keeps one) index exactly the nodes kept (seed 001: copying
/// what is kept is cheaper than deleting what is not, and keeps the graph compact).
pub(crate) fn keep_reachable<N: GraphNode, E: GraphEdge>(
    nodes: &mut Vec<N>,
    edges: &mut Vec<E>,
    table: Option<&mut HashIndex<u32>>,
    node: u32,
) {
    let old_nodes = std::mem::take(nodes);
    let old_edges = std::mem::take(edges);
    // Old index to new, NONE where not (yet) kept.
    let mut map = vec![NONE; old_nodes.len()];
    let mut stack = vec![node];
    map[node as usize] = 0;
    nodes.push(old_nodes[node as usize].clone());
    // Nodes are copied when first reached; their edge blocks when popped.
    while let Some(old) = stack.pop() {
        let new = map[old as usize];
        let first = edges.len() as u32;
        for e in &old_edges[old_nodes[old as usize].edges()] {
            let mut e = *e;
            let child = e.child();
            if child != NONE {
                if map[child as usize] == NONE {
                    map[child as usize] = nodes.len() as u32;
                    nodes.push(old_nodes[child as usize].clone());
                    stack.push(child);
                }
                e.set_child(map[child as usize]);
            }
            edges.push(e);
        }
        nodes[new as usize].set_first_edge(first);
    }
    if let Some(table) = table {
        table.clear();
        for (i, n) in nodes.iter().enumerate() {
            table.insert(n.hash(), i as u32);
        }
    }
}
