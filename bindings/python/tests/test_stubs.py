"""The type stubs (`_native.pyi`, shipped with `py.typed`) match the native module: the
same classes, functions, methods and parameter names."""

import ast
import inspect
from pathlib import Path

import meshcast
from meshcast import _native

STUBS = Path(meshcast.__file__).with_name("_native.pyi")


def stub_tree():
    return ast.parse(STUBS.read_text())


def parameters(node: ast.FunctionDef) -> list:
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args]
    names += [args.vararg.arg] if args.vararg else []
    names += [a.arg for a in args.kwonlyargs]
    names += [args.kwarg.arg] if args.kwarg else []
    return [n for n in names if n not in ("self", "cls")]


def native_parameters(function) -> list:
    signature = inspect.signature(function)
    return [n for n in signature.parameters if n not in ("self", "cls", "$self", "$cls")]


def test_the_package_ships_py_typed():
    assert STUBS.exists()
    assert STUBS.with_name("py.typed").exists()


def test_every_stubbed_name_exists_and_every_public_name_is_stubbed():
    tree = stub_tree()
    stubbed = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            stubbed.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            stubbed.add(node.target.id)
    public = {name for name in dir(_native) if not name.startswith("__") or name == "__version__"}
    helpers = {"ArrayLike", "StrPath"}
    assert stubbed - helpers == public


def test_methods_and_their_parameters_match():
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            assert parameters(node) == native_parameters(getattr(_native, node.name)), node.name
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(_native, node.name)
        stubbed = set()
        for item in node.body:
            if not isinstance(item, ast.FunctionDef):
                continue
            stubbed.add(item.name)
            member = inspect.getattr_static(cls, item.name)
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if isinstance(member, property) or type(member).__name__ == "getset_descriptor":
                continue
            if item.name == "__new__":
                continue
            assert parameters(item) == native_parameters(getattr(cls, item.name)), f"{node.name}.{item.name}"
        native = {name for name, _ in vars(cls).items() if not name.startswith("__") or name in ("__reduce__", "__len__")}
        assert native <= stubbed, f"{node.name}: not stubbed {native - stubbed}"
