"""Textual's footer, recomposed only when the keys it would show change.

Textual's own recomposes for every change of bindings (the screen's focus, its
stack, the app's focus: three as the inspector starts, each one unmounting and
mounting every key, with the same keys each time), on the UI thread while the
worker lists a capture: a tenth of the UI thread's start.
"""

from __future__ import annotations

from collections.abc import Hashable

from textual.widgets import Footer as TextualFooter


class Footer(TextualFooter):
    _shown: Hashable = None  # what the keys were composed from (None: nothing composed yet)

    def _keys(self) -> Hashable:
        """Everything Textual's ``compose`` reads to make the keys."""
        app = self.app
        bindings = tuple(
            (binding, enabled, tooltip, app.get_key_display(binding))
            for _, binding, enabled, tooltip in self.screen.active_bindings.values()
        )
        return (self._bindings_ready, self.show_command_palette, self.combine_groups, bindings)

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        keys = self._keys()
        if keys == self._shown:
            return
        self._shown = keys
        await super().recompose()
