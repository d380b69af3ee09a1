"""The Python examples of the documentation run as written: each file's ```python blocks in
order, in one namespace, from the repository root (their relative paths are from there)."""
import re

import pytest

from conftest import ROOT


@pytest.mark.parametrize("doc", ["docs/python.md", "README.md"])
def test_examples_run_as_written(doc, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / doc).read_text(), re.S)
    assert blocks, f"{doc} has no python examples"
    monkeypatch.chdir(ROOT)
    namespace = {}
    for i, block in enumerate(blocks):
        exec(compile(block, f"{doc} example {i}", "exec"), namespace)
