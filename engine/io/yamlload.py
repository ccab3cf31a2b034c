"""The YAML half of the one reader of YAML and JSON input
(:mod:`uschess.io.textdata`, which says what is refused and why): the safe
loader, libyaml's where PyYAML was built with it, with a budget for aliases,
no key given twice in a mapping and integers of bounded length.  Imported
where YAML text is read, so that reading JSON (a replay's files) does not
import PyYAML, which takes longer to import than a small event to rate."""

from __future__ import annotations

import yaml

from uschess.io.refusals import ALIAS_BUDGET, MAX_INTEGER_DIGITS, Refused, reason


BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when installed


class Loader(BASE_LOADER):
    """The safe loader (libyaml's when installed), with a budget for
    aliases and no duplicate keys."""

    #: False when the text holds no ``&``: without an anchor there is no
    #: alias, and the node graph is a tree (nothing to count).
    may_alias = True

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None and self.may_alias:
            _check_aliases(node)
        return node

    def construct_object(self, node, deep=False):
        try:
            return super().construct_object(node, deep=deep)
        except (Refused, yaml.YAMLError, RecursionError):
            raise
        except Exception as err:  # noqa: BLE001 - PyYAML's constructors raise anything
            # ValueError (2024-02-30), AttributeError (!!timestamp null),
            # KeyError (!!bool abc), OverflowError: the value is unreadable
            raise Refused(f"unreadable value ({reason(err, getattr(node, 'tag', ''))})",
                           node.start_mark)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # '<<': merged keys may be overridden, by the rules of YAML
                key = self.construct_object(key_node, deep=deep)
                try:
                    hash(key)
                except TypeError:
                    raise Refused("a mapping key must be text or a number", key_node.start_mark)
                if key in seen:
                    raise Refused(f"key {key!r} given twice in one mapping (also line "
                                   f"{seen[key].line + 1})", key_node.start_mark)
                seen[key] = key_node.start_mark
        return super().construct_mapping(node, deep=deep)


def _check_aliases(root) -> None:
    """Refuse a node graph whose aliases (shared nodes) expand to more than
    ALIAS_BUDGET nodes beyond the document's own, or that contains itself."""
    sizes: dict[int, int] = {}
    distinct = 0
    first_shared = None
    # iterative post-order walk: (node, children pushed?)
    stack: list = [(root, False)]
    on_path: set[int] = set()
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if expanded:
            on_path.discard(key)
            if isinstance(node, yaml.ScalarNode):
                size = 1
            elif isinstance(node, yaml.SequenceNode):
                size = 1 + sum(sizes[id(n)] for n in node.value)
            else:
                size = 1 + sum(sizes[id(k)] + sizes[id(v)] for k, v in node.value)
            sizes[key] = size
            continue
        if key in on_path:
            raise Refused("an alias refers to a node that contains it", node.start_mark)
        if key in sizes:
            if first_shared is None:
                first_shared = node
            continue
        distinct += 1
        on_path.add(key)
        stack.append((node, True))
        if isinstance(node, yaml.SequenceNode):
            children = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        for child in reversed(children):
            stack.append((child, False))
    if sizes[id(root)] - distinct > ALIAS_BUDGET:
        mark = first_shared.start_mark if first_shared is not None else root.start_mark
        raise Refused(f"aliases expand to over {ALIAS_BUDGET:,} values (write the data "
                       "out); the first aliased node is", mark)


def _construct_int(loader, node):
    text = str(node.value).replace("_", "").lstrip("+-")
    if len(text) > MAX_INTEGER_DIGITS + 2:  # room for 0x, 0o, 0b prefixes
        raise Refused(f"a number of {len(text)} digits (no value needs more than "
                       f"{MAX_INTEGER_DIGITS})", node.start_mark)
    return yaml.SafeLoader.construct_yaml_int(loader, node)


Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
