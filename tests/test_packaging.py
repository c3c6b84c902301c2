"""The project as `make run` installs it on a new machine: ``pip install -e '.[dev]'`` in a fresh venv."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT


def test_the_editable_install_says_nothing(tmp_path: Path) -> None:
    # Issue #61: setuptools installs a project whose packages lie at its root, undeclared, through an import
    # finder, and warns that folders of the working directory may shadow them (pip 25 and later print a
    # build backend's warnings). Declared (pyproject's package-dir), the root is one plain path entry.
    project = tmp_path / "project"
    shutil.copytree(ROOT, project, ignore=shutil.ignore_patterns(".*", "__pycache__", "*.egg-info", "build"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    install = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet"]
    done = subprocess.run(
        [*install, "--no-deps", "--editable", str(project)], capture_output=True, text=True, check=False
    )
    if "No matching distribution found" in done.stderr:
        pytest.skip(f"no package index to fetch the build backend from: {done.stderr}")
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr, done.stderr
