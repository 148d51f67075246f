"""The pads' one colour bar: the colour mode's title, at the right edge of the view, or of the
right half's renderer when comparing side by side, so it covers neither run."""

from __future__ import annotations

from typing import Any

from app.visuals.base import Visual

# Where the bar's lower left corner sits in its renderer's viewport (0..1), in the whole view
# and in the right half of a side-by-side comparison.
BAR_X, BAR_X_SIDE, BAR_Y = 0.88, 0.74, 0.25
FIELD_TITLES = {"energy": "strain energy density (J/m^3)", "displacement": "displacement (mm)"}


class ColourBarVisual(Visual):
    """The bar of the pads' field (scalar bars live in the plotter, not an actor name)."""

    side: Any | None = None  # the right half's renderer holding the bar, side by side

    def update(self, title: str, mapper: Any | None, side: Any | None) -> None:
        """Show the bar titled `title` of the pads' `mapper` ("" or None: no bar), in the
        `side` renderer when given."""
        self.side = side
        plotter = self.scene.plotter
        bars = plotter.scalar_bars
        visible = bool(title) and mapper is not None
        for existing in list(bars.keys()):
            if existing != title or not visible:
                if side is not None:
                    side.RemoveViewProp(bars[existing])
                plotter.remove_scalar_bar(existing, render=False)
        if visible and title not in bars:
            # ScalarBars' own method (the plotter's wrapper types as an unbound function).
            bars.add_scalar_bar(
                title, mapper=mapper, vertical=True, position_x=BAR_X, position_y=BAR_Y,
                height=0.5, width=0.06, n_labels=4, fmt="%.2g", color="#222222",
                title_font_size=12, label_font_size=11, render=False,
            )  # fmt: skip
        if visible and side is not None and title in bars and not side.HasViewProp(bars[title]):
            plotter.renderer.RemoveViewProp(bars[title])
            side.AddViewProp(bars[title])
            # Half as wide a renderer: further in, so its title and labels are not cut off.
            bars[title].SetPosition(BAR_X_SIDE, BAR_Y)

    def back_to_main(self, side: Any) -> None:
        """The bars in `side` back in the one view (the comparison ends)."""
        self.side = None
        main = self.scene.plotter.renderer
        for bar in self.scene.plotter.scalar_bars.values():
            if side.HasViewProp(bar):
                side.RemoveViewProp(bar)
                main.AddViewProp(bar)
                bar.SetPosition(BAR_X, BAR_Y)

    @property
    def bars(self) -> dict[str, str]:
        """The bars drawn: title -> "main" or "side" (the renderer holding it)."""
        plotter, side = self.scene.plotter, self.side
        return {
            title: "side" if side is not None and side.HasViewProp(bar) else "main"
            for title, bar in plotter.scalar_bars.items()
            if plotter.renderer.HasViewProp(bar) or (side is not None and side.HasViewProp(bar))
        }
