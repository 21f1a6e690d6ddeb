// explorer.html (report/explorer/explorer_assets.h): the page skeleton. The status line stays until
// explorer.js replaces it, so a data or code file that fails to load leaves a message, never a blank
// page.
#include "report/explorer/explorer_assets.h"

namespace sinklab {

extern const char kExplorerHtml[] = R"HTML(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<link rel="stylesheet" href="@ASSETS@explorer.css">
</head>
<body>
<h1>@TITLE@</h1>
<div id="status" class="note">Loading the explorer. If this message stays, explorer-data.js or @ASSETS@explorer.js is
missing, truncated or blocked: run <code>sinklab report</code> on the run or sweep folder again.</div>
<noscript><div class="problem">The explorer needs JavaScript.</div></noscript>
<div id="app"></div>
<script src="explorer-data.js"></script>
<script src="@ASSETS@explorer.js"></script>
</body>
</html>
)HTML";

}  // namespace sinklab
