"""The ``cli-reference`` directive: the command line's reference, read from its Click objects.

Typer builds a Click command group from :data:`halfspaces.cli.app`; for every command the
page shows the usage line, the help text and each argument and option with the very text
``halfspaces COMMAND --help`` prints (Click's ``get_help_record``: names, type, choices,
default, range), so the page cannot drift from the program. Only Click's public interface
is used, by duck typing: Typer releases that vendor their own copy of Click
(``typer._click``) work as well as those built on Click itself. Help texts are plain text
for a terminal, so they are shown as text, never parsed as reStructuredText.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive


def _paragraphs(text: str | None) -> list[nodes.Node]:
    blocks = [" ".join(b.split()) for b in (text or "").strip().split("\n\n")]
    return [nodes.paragraph(text=b) for b in blocks if b]


def _param_item(record: tuple[str, str]) -> nodes.Node:
    names, text = record
    item = nodes.definition_list_item()
    term = nodes.term()
    term += nodes.literal(text=names)
    item += term
    body = nodes.definition()
    body += _paragraphs(text)
    item += body
    return item


def _command_section(command, ctx, doc, ids: str) -> nodes.section:
    section = nodes.section(ids=[ids])
    section += nodes.title(text=ctx.command_path)
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    section += nodes.literal_block(text=usage, language="none")
    section += _paragraphs(command.help)
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    for heading, kind in (("Arguments", "argument"), ("Options", "option")):
        records = [p.get_help_record(ctx) for p in params if p.param_type_name == kind]
        records = [r for r in records if r]
        if records:
            section += nodes.rubric(text=heading)
            listing = nodes.definition_list()
            listing += [_param_item(r) for r in records]
            section += listing
    doc.note_explicit_target(section)
    return section


class CliReference(Directive):
    """Render the ``halfspaces`` group and each of its commands, in the app's order."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import typer.main

        from halfspaces.cli import app

        group = typer.main.get_command(app)
        root = group.context_class(group, info_name="halfspaces")
        doc = self.state.document
        sections = [_command_section(group, root, doc, "cli-halfspaces")]
        for name, command in group.commands.items():
            ctx = command.context_class(command, info_name=name, parent=root)
            sections.append(_command_section(command, ctx, doc, f"cli-{name}"))
        if len(sections) < 2 or not all(len(s) > 2 for s in sections):
            raise self.error("cli-reference: the Typer app gave no commands or no help")
        return sections


def setup(app):
    app.add_directive("cli-reference", CliReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
