// explorer.css (report/explorer/explorer_assets.h).
#include "report/explorer/explorer_assets.h"

namespace sinklab {

extern const char kExplorerCss[] = R"CSS(body { font: 14px/1.4 system-ui, sans-serif; margin: 1em 2em; color: #222; background: #fff; }
h1 { font-size: 1.3em; margin: 0.2em 0; }
.facts { color: #555; margin: 0.2em 0 0.8em; }
.problem { border: 2px solid #b00; background: #fee; color: #600; padding: 0.6em 0.8em; margin: 0.6em 0; white-space: pre-wrap; }
.note { border-left: 4px solid #888; background: #f4f4f4; padding: 0.4em 0.8em; margin: 0.6em 0; }
.hidden { display: none; }
.controls { display: flex; flex-wrap: wrap; gap: 0.6em 1.2em; align-items: center; position: sticky; top: 0;
            background: #fff; padding: 0.5em 0; z-index: 2; border-bottom: 1px solid #ddd; }
.controls input[type=range] { width: 22em; }
.controls button { min-width: 5em; }
.readout { font-family: ui-monospace, monospace; font-size: 13px; min-height: 1.4em; }
.grid { display: grid; gap: 14px; margin-top: 0.8em; }
.head { border: 1px solid #ddd; padding: 6px; background: #fafafa; }
.head h3 { font-size: 13px; margin: 0 0 4px; font-weight: 600; display: flex; justify-content: space-between; gap: 0.5em; }
canvas.heatmap { display: block; width: 200px; height: 200px; image-rendering: pixelated; cursor: crosshair;
                 border: 1px solid #ccc; background: #fff; }
canvas.curves { display: block; width: 200px; height: 80px; margin-top: 4px; }
.badge { font-size: 11px; padding: 0 6px; border-radius: 8px; font-weight: 600; }
.badge.sink { background: #c33; color: #fff; }
.badge.nosink { background: #ddd; color: #333; }
.badge.unknown { background: #eee; color: #777; }
.legend { font-size: 12px; color: #555; }
.legend span { display: inline-block; margin-right: 1em; }
.swatch { display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin-right: 4px; }
.overlay { position: fixed; inset: 0; background: rgba(0, 0, 0, 0.45); z-index: 5; display: flex; align-items: center; justify-content: center; }
.overlay .panel { background: #fff; padding: 1em; max-width: 95vw; max-height: 95vh; overflow: auto; }
.overlay canvas.big { width: auto; height: auto; image-rendering: pixelated; cursor: crosshair; }
.sweep { display: flex; gap: 18px; align-items: flex-start; flex-wrap: wrap; margin-top: 0.8em; }
.variant { border: 1px solid #ddd; padding: 6px; background: #fafafa; }
.variant h2 { font-size: 14px; margin: 0 0 6px; }
.seeds { display: grid; grid-template-columns: auto; gap: 8px; }
.seed canvas.heatmap { width: 110px; height: 110px; }
.seed .caption { font-size: 12px; }
)CSS";

}  // namespace sinklab
