"""The footer: composed again when the keys it shows change, and only then."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.widgets._footer import FooterKey

from mcpspy.tui.widgets.footer import Footer


class Toggling(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [("a", "act", "Act"), ("b", "other", "Other")]
    act_enabled = True

    def compose(self) -> ComposeResult:
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "act" and not self.act_enabled else True  # None: shown, disabled

    def action_act(self) -> None:
        pass

    def action_other(self) -> None:
        pass


async def test_the_footer_is_composed_again_only_when_its_keys_change() -> None:
    app = Toggling()
    async with app.run_test() as pilot:
        await pilot.pause()
        first = list(app.query(FooterKey))
        assert [key.description for key in first] == ["Act", "Other", "palette"]
        assert not any(key.has_class("-disabled") for key in first)
        app.screen.refresh_bindings()  # nothing it shows changed: the same keys, not made again
        await pilot.pause()
        assert list(app.query(FooterKey)) == first
        app.act_enabled = False  # a key disabled: composed again, and drawn so
        app.screen.refresh_bindings()
        await pilot.pause()
        keys = list(app.query(FooterKey))
        assert keys != first and [key.has_class("-disabled") for key in keys] == [True, False, False]
