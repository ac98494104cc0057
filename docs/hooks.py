"""mkdocs hooks: the site shows `benchmarks/README.md` too, with its links working.

The Markdown is written for GitHub, where a link is relative to the file in the repository:
`docs/development.md` links to `../benchmarks/README.md`. The site mounts that README at
`benchmarks/README.md` inside the docs, so each link to or from a mounted file is rewritten
to where its target sits on the site; every other link is left for `--strict` to check.
"""

from __future__ import annotations

import os.path
import posixpath
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

MOUNTED = {"benchmarks/README.md": "benchmarks/README.md"}
"""Files outside docs/ that the site shows: repository path → path on the site."""

# A relative link's path: not a URL with a scheme, not an anchor alone, not absolute.
LINK = re.compile(r"\]\((?![a-z]+:|#|/)([^)\s#]+)")


def _repository(config: MkDocsConfig) -> Path:
    return Path(str(config.config_file_path)).parent


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add each mounted file to the site, read from where it lives."""
    for source, site in MOUNTED.items():
        path = str(_repository(config) / source)
        files.append(File.generated(config, site, abs_src_path=path))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Point each link that reaches a docs page or a mounted file at it as the site has it."""
    repository = _repository(config)
    docs = Path(config.docs_dir)
    here = Path(str(page.file.abs_src_path)).parent
    here_on_site = posixpath.dirname(page.file.src_uri) or "."

    def on_site(target: Path) -> str | None:
        if target.is_relative_to(repository):
            mounted = MOUNTED.get(target.relative_to(repository).as_posix())
            if mounted is not None:
                return mounted
        return target.relative_to(docs).as_posix() if target.is_relative_to(docs) else None

    def rewrite(link: re.Match[str]) -> str:
        target = on_site(Path(os.path.normpath(here / link[1])))
        return link[0] if target is None else "](" + posixpath.relpath(target, here_on_site)

    return LINK.sub(rewrite, markdown)
