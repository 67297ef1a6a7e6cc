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


def typed_dict_fields(name: str) -> list:
    """The fields of the stubs' TypedDict `name`, its bases' first."""
    classes = {node.name: node for node in stub_tree().body if isinstance(node, ast.ClassDef)}
    node = classes[name]
    fields = []
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in classes:
            fields += typed_dict_fields(base.id)
    return fields + [item.target.id for item in node.body if isinstance(item, ast.AnnAssign)]


def parameters(node: ast.FunctionDef) -> list:
    """The parameter names of a stub, its `**keywords: Unpack[_Rays...]` spelled out as the
    ray keywords the native signature lists (camera keywords stay `**camera_keywords`, as
    the native signature has them)."""
    args = node.args
    names = [a.arg for a in args.posonlyargs + args.args]
    names += [args.vararg.arg] if args.vararg else []
    names += [a.arg for a in args.kwonlyargs]
    kwarg = args.kwarg
    if kwarg is not None and kwarg.arg == "keywords":
        unpacked = kwarg.annotation.slice.id
        names += typed_dict_fields(unpacked)
    elif kwarg is not None:
        names.append(kwarg.arg)
    return [n for n in names if n not in ("self", "cls")]


def native_parameters(function) -> list:
    signature = inspect.signature(function)
    return [n for n in signature.parameters if n not in ("self", "cls", "$self", "$cls")]


def test_the_package_ships_py_typed():
    assert STUBS.exists()
    assert STUBS.with_name("py.typed").exists()


def stub_bases(tree) -> dict:
    """The stub-only classes (a leading underscore, absent from the module): methods that
    several native classes share, stubbed once."""
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.name.startswith("_") and not hasattr(_native, node.name)
    }


def stubbed_methods(node: ast.ClassDef, bases: dict) -> list:
    """The methods a stub class declares, its stub-only bases' included."""
    methods = []
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in bases:
            methods += stubbed_methods(bases[base.id], bases)
    return methods + [item for item in node.body if isinstance(item, ast.FunctionDef)]


def test_every_stubbed_name_exists_and_every_public_name_is_stubbed():
    tree = stub_tree()
    stubbed = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            stubbed.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            stubbed.add(node.target.id)
    public = {name for name in dir(_native) if not name.startswith("__") or name == "__version__"}
    helpers = {"ArrayLike", "StrPath"} | set(stub_bases(tree))
    assert stubbed - helpers == public


def test_methods_and_their_parameters_match():
    tree = stub_tree()
    bases = stub_bases(tree)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            assert parameters(node) == native_parameters(getattr(_native, node.name)), node.name
        if not isinstance(node, ast.ClassDef) or node.name in bases:
            continue
        cls = getattr(_native, node.name)
        stubbed = set()
        for item in stubbed_methods(node, bases):
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
