//! Walking a game tree without recursion.
//!
//! A PGN file may nest variations as deep as it likes (`1. e4 (1. e4 (1. e4
//! ...)))`); python-chess reads 100,000 levels. Every operation on the tree
//! that visits the variations therefore runs on an explicit stack, never on
//! the call stack: [`Line::walk`] (which the writer uses), and the `Drop`,
//! `Clone`, `PartialEq` and `Debug` of [`Line`] and [`Node`], so a deep tree
//! is read, written, compared, printed and dropped in constant stack space.
//!
//! ```
//! use rookery_pgn::tree::Step;
//! use rookery_pgn::Games;
//!
//! let read = Games::new(&b"1. e4 (1. d4 (1. c4)) e5 *"[..]).next().unwrap()?;
//! let mut deepest = 0;
//! for (depth, step) in read.game.mainline.walk() {
//!     if let Step::Enter(_) = step {
//!         deepest = deepest.max(depth);
//!     }
//! }
//! assert_eq!(deepest, 2); // the mainline is depth 0
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fmt;

use crate::game::{Line, Node};

/// One step of a depth-first walk over a [`Line`] and its variations, in
/// the order the writer writes them.
#[derive(Clone, Copy)]
pub enum Step<'a> {
    /// A line begins: the line walked, or a variation of the node last given
    /// by [`Step::Node`] one level up (it starts from the position before
    /// that node's move).
    Enter(&'a Line),
    /// A node of the current line; its variations follow, then
    /// [`Step::NodeDone`].
    Node(&'a Node),
    /// The variations of the node are done (its move is now played).
    NodeDone(&'a Node),
    /// The current line ends (its trailing comments come here).
    Leave(&'a Line),
}

impl fmt::Debug for Step<'_> {
    /// Shallow: a node shows the number of its variations, a line its
    /// trailing comments, never their contents (those are other steps).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Enter(_) => f.write_str("Enter"),
            Step::Node(n) => f
                .debug_struct("Node")
                .field("mv", &n.mv)
                .field("comments_before", &n.comments_before)
                .field("nags", &n.nags)
                .field("comments_after", &n.comments_after)
                .field("variations", &n.variations.len())
                .finish(),
            Step::NodeDone(_) => f.write_str("NodeDone"),
            Step::Leave(l) => f
                .debug_struct("Leave")
                .field("trailing_comments", &l.trailing_comments)
                .finish(),
        }
    }
}

/// Where a walk stands in one line.
struct Cursor<'a> {
    line: &'a Line,
    /// The node being visited (or the next one).
    node: usize,
    /// `None` before the node is given; then the next variation of it to enter.
    var: Option<usize>,
}

/// The iterator of [`Line::walk`]: `(depth, step)` pairs, depth 0 for the
/// line walked, 1 for its variations, and so on. Its stack is on the heap.
pub struct Walk<'a> {
    root: Option<&'a Line>,
    stack: Vec<Cursor<'a>>,
}

impl<'a> Iterator for Walk<'a> {
    type Item = (usize, Step<'a>);

    fn next(&mut self) -> Option<(usize, Step<'a>)> {
        if let Some(root) = self.root.take() {
            self.stack.push(Cursor {
                line: root,
                node: 0,
                var: None,
            });
            return Some((0, Step::Enter(root)));
        }
        let depth = self.stack.len().checked_sub(1)?;
        let top = self.stack.last_mut()?;
        let line = top.line;
        match top.var {
            None => match line.nodes.get(top.node) {
                Some(node) => {
                    top.var = Some(0);
                    Some((depth, Step::Node(node)))
                }
                None => {
                    self.stack.pop();
                    Some((depth, Step::Leave(line)))
                }
            },
            Some(v) => {
                let node = &line.nodes[top.node];
                match node.variations.get(v) {
                    Some(var) => {
                        top.var = Some(v + 1);
                        self.stack.push(Cursor {
                            line: var,
                            node: 0,
                            var: None,
                        });
                        Some((depth + 1, Step::Enter(var)))
                    }
                    None => {
                        top.node += 1;
                        top.var = None;
                        Some((depth, Step::NodeDone(node)))
                    }
                }
            }
        }
    }
}

impl Line {
    /// Walks the line and all its variations depth first (see [`Step`]),
    /// without recursion.
    pub fn walk(&self) -> Walk<'_> {
        Walk {
            root: Some(self),
            stack: Vec::new(),
        }
    }

    /// The deepest nesting of variations below this line (0 when it has none).
    pub fn depth(&self) -> usize {
        self.walk()
            .filter(|(_, s)| matches!(s, Step::Enter(_)))
            .map(|(d, _)| d)
            .max()
            .unwrap_or(0)
    }
}

/// Moves the variations of `nodes` to `pending`.
fn take_variations(nodes: &mut [Node], pending: &mut Vec<Line>) {
    for node in nodes {
        pending.append(&mut node.variations);
    }
}

impl Drop for Line {
    /// Drops the variations from a heap stack: each line is emptied of its
    /// variations before it is dropped, so no drop recurses more than one level.
    fn drop(&mut self) {
        let mut pending = Vec::new();
        take_variations(&mut self.nodes, &mut pending);
        while let Some(mut line) = pending.pop() {
            take_variations(&mut line.nodes, &mut pending);
        }
    }
}

/// A node without its variations (room made for them).
fn shallow(node: &Node) -> Node {
    Node {
        mv: node.mv,
        comments_before: node.comments_before.clone(),
        nags: node.nags.clone(),
        nag_slots: node.nag_slots.clone(),
        comments_after: node.comments_after.clone(),
        variations: Vec::with_capacity(node.variations.len()),
    }
}

impl Clone for Line {
    fn clone(&self) -> Line {
        // Lines under construction, innermost last.
        let mut open: Vec<Line> = Vec::new();
        for (_, step) in self.walk() {
            match step {
                Step::Enter(_) => open.push(Line::default()),
                Step::Node(node) => {
                    if let Some(line) = open.last_mut() {
                        line.nodes.push(shallow(node));
                    }
                }
                Step::NodeDone(_) => {}
                Step::Leave(src) => {
                    let Some(mut line) = open.pop() else { break };
                    line.trailing_comments.clone_from(&src.trailing_comments);
                    // A variation belongs to the last node of the line it was entered from.
                    match open.last_mut().and_then(|p| p.nodes.last_mut()) {
                        Some(parent) => parent.variations.push(line),
                        None => return line,
                    }
                }
            }
        }
        // The walk always ends with leaving the line it started with.
        Line::default()
    }
}

impl Clone for Node {
    fn clone(&self) -> Node {
        let mut node = shallow(self);
        node.variations = self.variations.clone();
        node
    }
}

/// Whether two steps are equal, looking at what each step owns only.
fn same_step(a: &Step<'_>, b: &Step<'_>) -> bool {
    match (a, b) {
        (Step::Enter(_), Step::Enter(_)) | (Step::NodeDone(_), Step::NodeDone(_)) => true,
        (Step::Node(x), Step::Node(y)) => {
            x.mv == y.mv
                && x.comments_before == y.comments_before
                && x.nags == y.nags
                && x.comments_after == y.comments_after
                && x.variations.len() == y.variations.len()
        }
        (Step::Leave(x), Step::Leave(y)) => x.trailing_comments == y.trailing_comments,
        _ => false,
    }
}

impl PartialEq for Line {
    fn eq(&self, other: &Line) -> bool {
        // Equal step sequences are equal trees: the steps spell out the shape.
        let (mut a, mut b) = (self.walk(), other.walk());
        loop {
            match (a.next(), b.next()) {
                (None, None) => return true,
                (Some((_, x)), Some((_, y))) if same_step(&x, &y) => {}
                _ => return false,
            }
        }
    }
}

impl Eq for Line {}

impl PartialEq for Node {
    fn eq(&self, other: &Node) -> bool {
        same_step(&Step::Node(self), &Step::Node(other)) && self.variations == other.variations
    }
}

impl Eq for Node {}

impl fmt::Debug for Line {
    /// The steps of [`Line::walk`], as a flat list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.walk().map(|(_, s)| s)).finish()
    }
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("mv", &self.mv)
            .field("comments_before", &self.comments_before)
            .field("nags", &self.nags)
            .field("comments_after", &self.comments_after)
            .field("variations", &self.variations)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::{Move, Position, UciMove};

    /// `depth` nested variations of 1. e4, each hanging from the one before.
    fn nested(depth: usize) -> Line {
        let pos = Position::startpos();
        let e4 = UciMove::from_ascii(b"e2e4").unwrap().to_move(&pos).unwrap();
        let mut line = Line::default();
        line.nodes.push(Node::new(e4));
        for _ in 0..depth {
            let mut outer = Line::default();
            let mut node = Node::new(e4);
            node.variations.push(line);
            outer.nodes.push(node);
            line = outer;
        }
        line
    }

    #[test]
    fn a_deep_tree_is_walked_cloned_compared_printed_and_dropped() {
        // Deep enough to overflow any thread's stack if one of these recursed.
        let deep = nested(200_000);
        assert_eq!(deep.depth(), 200_000);
        let copy = deep.clone();
        assert_eq!(copy.depth(), 200_000);
        assert!(copy == deep);
        let mut other = nested(200_000);
        assert!(other == deep);
        other.nodes[0].mv = Move::NULL;
        assert!(other != deep);
        let printed = format!("{deep:?}");
        assert_eq!(printed.matches("Enter").count(), 200_001);
        drop(deep);
        drop(copy);
    }

    #[test]
    fn clone_and_eq_see_every_field() {
        let mut a = nested(3);
        a.trailing_comments.push("end".into());
        a.nodes[0].variations[0].nodes[0]
            .comments_after
            .push("x".into());
        let b = a.clone();
        assert_eq!(a, b);
        let mut c = a.clone();
        c.nodes[0].variations[0].nodes[0].comments_after[0] = "y".into();
        assert_ne!(a, c);
        let mut d = a.clone();
        d.nodes[0].variations[0].trailing_comments.push("z".into());
        assert_ne!(a, d);
        let mut e = a.clone();
        e.nodes[0].variations.push(Line::default());
        assert_ne!(a, e);
    }
}
