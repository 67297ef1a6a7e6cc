"""The native module's Rust modules use one another one way (the order `src/lib.rs`
writes down): no module reaches, through the modules it uses, back to itself."""

import re
from pathlib import Path

SOURCES = Path(__file__).resolve().parents[1] / "src"

#: `crate::name` anywhere in code, and the names of a `use crate::{a, b::c}` group.
PATH = re.compile(r"\bcrate::(\w+)")
GROUP = re.compile(r"\buse crate::\{([^}]*)\}", re.DOTALL)


def code(text: str) -> str:
    """`text` without its comments (`//` to the end of the line, doc comments too)."""
    return "\n".join(line.split("//", 1)[0] for line in text.splitlines())


def uses(path: Path) -> set:
    """The crate's modules that the module in `path` names."""
    text = code(path.read_text())
    names = set(PATH.findall(text))
    for group in GROUP.findall(text):
        names.update(part.strip().split("::")[0] for part in group.split(",") if part.strip())
    names.discard("")
    return names - {path.stem}


def graph() -> dict:
    modules = {path.stem: path for path in SOURCES.glob("*.rs") if path.stem != "lib"}
    return {name: uses(path) & set(modules) for name, path in modules.items()}


def circle(edges: dict):
    """A circle of modules (a list, the first repeated at the end), or None."""
    state = {}

    def visit(module, trail):
        state[module] = "open"
        for used in sorted(edges[module]):
            if state.get(used) == "open":
                return trail[trail.index(used):] + [used]
            if used not in state:
                found = visit(used, trail + [used])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(edges):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_the_graph_is_read_from_the_sources():
    edges = graph()
    assert {"mesh", "gpu", "contact", "objects"} <= set(edges)
    assert "gpu" in edges["mesh"], "Mesh.to_gpu uses gpu"
    assert "objects" in edges["gpu"], "GpuMesh.to_cpu makes its Mesh through objects"


def test_a_circle_is_found():
    assert circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert circle({"a": {"b"}, "b": set()}) is None


def test_no_module_reaches_back_to_itself():
    assert circle(graph()) is None


def test_concept_modules_name_no_class_module():
    edges = graph()
    classes = {"mesh", "scene", "gpu", "geometry", "objects"}
    for concept in ("contact", "fields", "views", "gpu_queries", "queries", "point_queries", "ray_arguments", "ray_reading", "state"):
        assert not edges[concept] & classes, f"{concept} uses {edges[concept] & classes}"
