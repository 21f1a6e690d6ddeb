#pragma once
// Base64 (RFC 4648, with '=' padding) of raw bytes: the explorer page embeds its arrays this way so
// that file:// needs no fetch (report/explorer/explorer_page.h); its script decodes them with atob.
#include <string>
#include <string_view>

namespace sinklab {

std::string base64_encode(std::string_view bytes);

}  // namespace sinklab
