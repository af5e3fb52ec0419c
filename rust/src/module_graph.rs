//! The crate's module graph has no cycle: a test that reads every file's `crate::` paths.
//!
//! A module names another by a `crate::<module>` path (in a `use` line or
//! inline); each such path is an edge. Comments are not edges, nor is a
//! file's `#[cfg(test)]` tail, nor `lib.rs` (the root declares every module)
//! or `py.rs` (the binding sits on top of all). Leaf shapes live low
//! (`records.rs`, `pytext.rs`) so that the entry point and the parsers, or a
//! rule and its helpers, never import each other (docs/rust-core.md).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

type Graph = BTreeMap<String, Vec<String>>;

/// The modules each source names, from its text (tests and comments left out).
fn edges(name: &str, source: &str, modules: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in source.lines() {
        let code = line.trim_start();
        if code.starts_with("#[cfg(test)]") {
            break;
        }
        if code.starts_with("//") {
            continue;
        }
        let code = code.split("//").next().unwrap_or("");
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let target = &rest[..end];
            if target != name
                && modules.iter().any(|m| m == target)
                && !out.iter().any(|m| m == target)
            {
                out.push(target.to_string());
            }
        }
    }
    out
}

fn graph(dir: &Path) -> Graph {
    let mut modules: Vec<String> = fs::read_dir(dir)
        .expect("rust/src is readable")
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .filter(|m| m != "lib" && m != "py")
        .collect();
    modules.sort();
    let mut graph = Graph::new();
    for m in &modules {
        let source = fs::read_to_string(dir.join(format!("{m}.rs"))).expect("a module is readable");
        graph.insert(m.clone(), edges(m, &source, &modules));
    }
    graph
}

/// A cycle as the list of modules round it, if the graph has one.
fn cycle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        g: &Graph,
        m: &str,
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|p| p == m) {
            let mut round = path[at..].to_vec();
            round.push(m.to_string());
            return Some(round);
        }
        if done.iter().any(|d| d == m) {
            return None;
        }
        path.push(m.to_string());
        for next in g.get(m).into_iter().flatten() {
            if let Some(found) = visit(g, next, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.push(m.to_string());
        None
    }
    let mut done = Vec::new();
    graph
        .keys()
        .find_map(|m| visit(graph, m, &mut Vec::new(), &mut done))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modules(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn the_crate_has_no_module_cycle() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rust/src");
        let g = graph(&dir);
        assert!(g.len() >= 20, "the sources were read: {:?}", g.keys());
        assert_eq!(
            g["transcript"],
            modules(&[
                "records",
                "claude",
                "codex",
                "gemini",
                "copilot",
                "cursor",
                "pi",
                "qwen",
                "antigravity"
            ])
        );
        assert_eq!(cycle(&g), None);
        // The shapes and Python's string rules sit at the bottom.
        assert_eq!((g["records"].len(), g["pytext"].len()), (0, 0));
    }

    #[test]
    fn uses_and_inline_paths_are_edges_but_comments_and_tests_are_not() {
        let all = modules(&["a", "b", "c", "d"]);
        let source = "//! see [`crate::d`]\nuse crate::b::{X, Y};\nfn f() { crate::c::g(); } // crate::d\n#[cfg(test)]\nmod tests { use crate::d; }\n";
        assert_eq!(edges("a", source, &all), modules(&["b", "c"]));
    }

    #[test]
    fn a_loop_through_three_modules_is_found() {
        let mut g = Graph::new();
        g.insert("a".into(), modules(&["b"]));
        g.insert("b".into(), modules(&["c"]));
        g.insert("c".into(), modules(&["a"]));
        g.insert("d".into(), modules(&["a"]));
        assert_eq!(cycle(&g), Some(modules(&["a", "b", "c", "a"])));
        g.insert("c".into(), Vec::new());
        assert_eq!(cycle(&g), None);
    }
}
