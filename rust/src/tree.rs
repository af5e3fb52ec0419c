//! The active branch of a transcript written as a tree (twin: `recall/_twin/tree.py`).
//!
//! Pi, OpenClaw and Qwen Code append entries that name their parent; a user
//! who goes back and continues from an earlier entry starts a new branch in
//! the same file, and the conversation is the path from the last entry back
//! to the root. A parse sees only the bytes after the previous one, so it
//! walks back from its last entry through its own entries: when that walk
//! ends at the entry the previous parse ended on (or at one after it that
//! could not end a branch), the new path extends the stored one and only its
//! new messages are emitted. Otherwise the branch moved to older entries this
//! parse cannot see, and [`Branch::finish`] says so: the adapter reads the
//! file again from the start and replaces the session's messages.

use crate::records::{Message, State};
use serde_json::Value;
use std::collections::HashMap;

/// At most this many pass-through entries are remembered after the leaf.
const TAIL_CAP: usize = 32;

/// Where an entry hangs.
pub enum Parent {
    /// A root (`parentId: null`, or not a string).
    Root,
    /// Under this entry.
    Of(String),
    /// No parent field (a linear, pre-tree layout): under the entry before it.
    Previous,
}

struct Node {
    id: String,
    parent: Option<String>,
    message: Option<Message>,
    /// Whether the branch can end here (a sub-agent's pass-through entry cannot).
    leaf: bool,
}

/// One parse's entries, in file order.
#[derive(Default)]
pub struct Branch {
    nodes: Vec<Node>,
    index: HashMap<String, usize>,
}

/// The state's `"tail"`: the leaf, then the pass-through entries after it.
fn stored_tail(st: &State) -> Vec<String> {
    match st.get("tail") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    }
}

impl Branch {
    /// Add an entry; `message` is what it contributes to the conversation, if anything.
    pub fn add(
        &mut self,
        st: &State,
        id: String,
        parent: Parent,
        message: Option<Message>,
        leaf: bool,
    ) {
        let parent = match parent {
            Parent::Root => None,
            Parent::Of(p) => Some(p),
            Parent::Previous => match self.nodes.last() {
                Some(n) => Some(n.id.clone()),
                None => stored_tail(st).pop(),
            },
        };
        self.index.insert(id.clone(), self.nodes.len());
        self.nodes.push(Node {
            id,
            parent,
            message,
            leaf,
        });
    }

    /// The messages on the active branch this parse adds, and whether the branch
    /// moved to entries before this parse (the file must be read again whole).
    /// Updates `st["tail"]`.
    pub fn finish(mut self, st: &mut State) -> (Vec<Message>, bool) {
        let prior = stored_tail(st);
        let Some(last) = self.nodes.iter().rposition(|n| n.leaf) else {
            let mut tail = prior;
            for n in &self.nodes {
                if tail.len() < TAIL_CAP {
                    tail.push(n.id.clone());
                }
            }
            if !tail.is_empty() {
                st.insert("tail".into(), tail.into_iter().map(Value::String).collect());
            }
            return (Vec::new(), false);
        };
        let mut chain = vec![last];
        let top = loop {
            let cur = chain[chain.len() - 1];
            let Some(p) = &self.nodes[cur].parent else {
                break None;
            };
            match self.index.get(p) {
                Some(&j) if chain.len() < self.nodes.len() => chain.push(j),
                _ => break Some(p.clone()),
            }
        };
        let joined = match &top {
            _ if prior.is_empty() => true,
            Some(t) => prior.contains(t),
            None => false,
        };
        let mut tail = vec![self.nodes[last].id.clone()];
        for n in &self.nodes[last + 1..] {
            if tail.len() < TAIL_CAP {
                tail.push(n.id.clone());
            }
        }
        st.insert("tail".into(), tail.into_iter().map(Value::String).collect());
        let messages = chain
            .into_iter()
            .rev()
            .filter_map(|i| self.nodes[i].message.take())
            .collect();
        (messages, !joined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::USER;

    fn msg(text: &str) -> Option<Message> {
        Some(Message {
            key: text.into(),
            role: USER,
            text: text.into(),
            timestamp: None,
        })
    }

    fn texts(m: &[Message]) -> Vec<&str> {
        m.iter().map(|m| m.text.as_str()).collect()
    }

    #[test]
    fn abandoned_branch_is_left_out() {
        let mut st = State::new();
        let mut b = Branch::default();
        b.add(&st, "a".into(), Parent::Root, msg("a"), true);
        b.add(&st, "b".into(), Parent::Of("a".into()), msg("b"), true);
        b.add(&st, "c".into(), Parent::Of("a".into()), msg("c"), true);
        let (m, again) = b.finish(&mut st);
        assert_eq!(texts(&m), ["a", "c"]);
        assert!(!again);
    }

    #[test]
    fn a_later_parse_extends_or_asks_for_the_whole_file() {
        let mut st = State::new();
        let mut b = Branch::default();
        b.add(&st, "a".into(), Parent::Root, msg("a"), true);
        b.add(&st, "b".into(), Parent::Previous, msg("b"), true);
        b.finish(&mut st);
        let mut next = Branch::default();
        next.add(&st, "c".into(), Parent::Of("b".into()), msg("c"), true);
        let (m, again) = next.finish(&mut st.clone());
        assert_eq!((texts(&m), again), (vec!["c"], false));
        let mut moved = Branch::default();
        moved.add(&st, "d".into(), Parent::Of("a".into()), msg("d"), true);
        assert!(moved.finish(&mut st).1);
    }
}
