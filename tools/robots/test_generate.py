#!/usr/bin/env python3
"""Checks that assets/robots is exactly what tools/robots/generate.py writes (so nobody edits
the generated files by hand or forgets to regenerate) and that the generator's self-check
passes. Standard library only:  python3 tools/robots/test_generate.py"""

import filecmp
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ASSETS = os.path.normpath(os.path.join(HERE, "..", "..", "assets", "robots"))


def tree(root):
    out = []
    for d, _, files in os.walk(root):
        out.extend(os.path.relpath(os.path.join(d, f), root) for f in files)
    return sorted(out)


class GeneratedAssets(unittest.TestCase):
    def test_assets_match_generator(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), "--out", tmp],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("self-check ok", p.stdout)
            self.assertEqual(tree(tmp), tree(ASSETS), "file lists differ: run generate.py")
            _, mismatch, errors = filecmp.cmpfiles(tmp, ASSETS, tree(tmp), shallow=False)
            self.assertEqual(mismatch + errors, [], "stale generated files: run generate.py")


if __name__ == "__main__":
    unittest.main()
