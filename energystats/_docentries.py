"""The shared entries of the Parameters sections of the public API, written once: the front
door (:mod:`energystats._frontdoor`) puts them into each public function's docstring.

An entry the docstring writes as its bare name (``rng`` alone on its line, its own sentences
below) gets the shared type and sentences before its own; an entry written with a type is the
function's own and stays as written; ``nan_policy`` and ``data_name``, when the docstring has
no entry, are added at the end of the section (before ``**options``).
"""

from __future__ import annotations

import textwrap

__all__ = ["DATA_NAME_ENTRY", "RNG_ENTRY", "nan_policy_entry", "write_entries"]

RNG_ENTRY = (
    "int, numpy.random.Generator or None, default=None",
    "The seed: an int, a numpy Generator (used, and advanced, in place) or None (fresh "
    "entropy); a RandomState, SeedSequence or BitGenerator is taken too. The same seed gives "
    "the same result.",
)

DATA_NAME_ENTRY = (
    "str, default=None",
    "What the result calls the data (its ``data_name``, R's ``data.name``, printed after "
    '"data:"). None: the names of pandas Series and of data frame columns, else the parameter '
    'names (``"x and y"``, ``"X by labels"``), never the caller\'s variables; a string is used '
    "as given.",
)


def nan_policy_entry(
    names: list[str], *, separate: bool, propagate: bool, matrices: bool, counted: bool
) -> tuple[str, str]:
    """The ``nan_policy`` entry of a function whose row arguments are ``names`` (none: a
    var-positional of samples), dropped each from its own sample (``separate``) or together; a
    precomputed matrix among them (``matrices``); ``n_omitted`` in the result (``counted``)."""
    values = '{"raise", "omit", "propagate"}' if propagate else '{"raise", "omit"}'
    quoted = [f"``{n}``" for n in names]
    listed = ", ".join(quoted[:-1]) + " or " * (len(quoted) > 1) + "".join(quoted[-1:])
    if not names:
        where, omit = "in a sample", "drop it from its own sample"
    elif separate:
        where, omit = f"in {listed}", "drop it from its own sample"
    else:
        together = "drop it" if len(names) == 1 else "drop the row of " + (
            "both" if len(names) == 2 else "all of them")
        where, omit = f"in {listed}", together
    if matrices:
        omit += " (a precomputed matrix loses the point's row and column)"
    count = "; the result's ``n_omitted`` counts them" if counted else ""
    nan = ', ``"propagate"`` return NaN' if propagate else ""
    text = (f"A row with a missing value (NaN, None, pandas NA, masked, or R's NA) {where}: "
            f'``"raise"`` an error, ``"omit"`` {omit}{count}{nan}.')
    return f'{values}, default="raise"', text


def write_entries(doc: str, entries: dict, insert: set) -> str:
    """``doc`` with the shared Parameters entries: an entry written as its bare name gets the
    type and the shared sentences (its own lines follow them); an entry written with a type
    is the function's own; a missing one of ``insert`` is added at the end of the section
    (before ``**options``)."""
    lines = doc.split("\n")
    start = next((i for i in range(len(lines) - 1) if lines[i].strip() == "Parameters"
                  and set(lines[i + 1].strip()) == {"-"}), None)
    if start is None or not entries:
        return doc
    indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
    end = start + 2
    while end < len(lines) and not (
        lines[end].startswith(indent) and lines[end].strip() and lines[end][len(indent)] != " "
        and end + 1 < len(lines) and set(lines[end + 1].strip()) == {"-"}
    ):
        end += 1
    while end > start + 2 and not lines[end - 1].strip():
        end -= 1
    heads = {lines[i].strip().split(" : ")[0]: i for i in range(start + 2, end)
             if lines[i].startswith(indent) and lines[i].strip()
             and lines[i][len(indent)] != " "}
    width = 92 - len(indent)
    below = indent + "    "
    added = []
    for name, (kind, text) in entries.items():
        body = textwrap.wrap(text, width - 4, break_on_hyphens=False)
        if name in heads:
            i = heads[name]
            if " : " not in lines[i]:
                lines[i] = f"{indent}{name} : {kind}"
                lines[i + 1:i + 1] = [below + line for line in body]
                heads = {k: (v + len(body) if v > i else v) for k, v in heads.items()}
                end += len(body)
        elif name in insert:
            added += [f"{indent}{name} : {kind}"] + [below + line for line in body]
    if added:
        at = min((i for n, i in heads.items() if n.startswith("**")), default=end)
        lines[at:at] = added
    return "\n".join(lines)
