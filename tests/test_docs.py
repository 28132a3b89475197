"""The documentation shows what the validation scripts commit."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_validation_figure_is_shown_in_the_docs():
    pages = "\n".join(path.read_text() for path in (ROOT / "docs").glob("*.md"))
    figures = sorted((ROOT / "validation" / "results").glob("*.png"))
    assert len(figures) >= 10
    missing = [path.name for path in figures if f"../validation/results/{path.name}" not in pages]
    assert missing == [], f"validation figures not shown in docs/*.md: {missing}"


def test_gallery_examples_are_executed_scripts_with_a_title():
    examples = sorted((ROOT / "docs" / "gallery").glob("plot_*.py"))
    assert len(examples) >= 7
    for path in examples:
        text = path.read_text()
        assert text.startswith('"""\n') and "\n===" in text.split('"""')[1], path.name
