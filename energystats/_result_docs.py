"""The numpydoc ``Attributes`` of a result composed from its bases' entries, so that a
field's documentation is written once, in the class that declares the field.

A base's entries are those of its own docstring's ``Attributes`` section
(:func:`attribute_entries`); :func:`compose_attributes` puts them first or last in a
subclass's section, except the entries of names the subclass documents itself (a field
whose meaning the subclass states more precisely). ``ResultMixin.__init_subclass__`` runs it
for every result class; numpydoc then renders the composed docstring as any other.
"""

from __future__ import annotations

__all__ = ["attribute_entries", "compose_attributes"]

#: an Attributes entry: the names it documents and its lines, without the section's indentation
Entry = tuple[frozenset, list[str]]


def _indentation(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _section(lines: list[str]) -> tuple[int, int, str] | None:
    """(first line, end, indentation) of the entries of the ``Attributes`` section of a
    docstring's lines, or None when it has none; the entries end at the next section."""

    def header(i: int) -> bool:
        return i + 1 < len(lines) and lines[i].strip() != "" and set(lines[i + 1].strip()) == {"-"}

    found = next(
        (i for i in range(len(lines)) if lines[i].strip() == "Attributes" and header(i)), None
    )
    if found is None:
        return None
    end = found + 2
    while end < len(lines) and not header(end):
        end += 1
    while end > found + 2 and not lines[end - 1].strip():
        end -= 1
    return found + 2, end, _indentation(lines[found])


def attribute_entries(doc: str) -> list[Entry]:
    """The entries of the ``Attributes`` section of ``doc``: the names each documents
    (``"mean, sd : float"`` documents two) and its lines."""
    lines = doc.splitlines()
    section = _section(lines)
    if section is None:
        return []
    start, end, indent = section
    entries: list[Entry] = []
    for line in lines[start:end]:
        if line.strip() and not line[len(indent) : len(indent) + 1].isspace():  # a new entry
            names = frozenset(name.strip() for name in line.split(" : ")[0].split(","))
            entries.append((names, [line[len(indent) :]]))
        elif entries:
            entries[-1][1].append(line[len(indent) :] if line.strip() else "")
    return entries


def compose_attributes(doc: str, head: list[Entry], tail: list[Entry]) -> str:
    """``doc`` with the entries ``head`` first in its ``Attributes`` section and ``tail`` last
    (the section added at the end when there is none). Where ``doc`` documents a field of a
    base itself, its own entry takes the base's place (a test's statistic stays first)."""
    lines = doc.rstrip().splitlines()
    section = _section(lines)
    if section is None:
        indent = next((_indentation(line) for line in lines[1:] if line.strip()), "")
        lines += ["", f"{indent}Attributes", f"{indent}----------"]
        section = (len(lines), len(lines), indent)
    start, end, indent = section
    own = attribute_entries(doc)
    used: list[int] = []

    def placed(entries: list[Entry]) -> list[Entry]:
        out = []
        for names, body in entries:
            mine = [
                k for k, (own_names, _) in enumerate(own) if own_names & names and k not in used
            ]
            used.extend(mine)
            out += [own[k] for k in mine] if mine else [(names, body)]
        return out

    first, last = placed(head), placed(tail)
    entries = first + [entry for k, entry in enumerate(own) if k not in used] + last
    body = [indent + line if line else "" for _, entry in entries for line in entry]
    return "\n".join(lines[:start] + body + lines[end:]) + doc[len(doc.rstrip()) :]
