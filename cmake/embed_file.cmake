# Writes OUTPUT, a C++ source that defines `extern const char NAME[]` as the bytes of INPUT followed by a '\0',
# so that a file kept as itself in the repository (report/explorer/explorer.js, ...) is compiled into the
# binary: `sinklab report` then needs no install directory. Run at build time by the top-level
# CMakeLists.txt (add_custom_command), again whenever INPUT changes.
#   cmake -DINPUT=file -DOUTPUT=file.cpp -DNAME=kName -DHEADER=dir/header.h -DLABEL=repo/path -P embed_file.cmake
foreach(var INPUT OUTPUT NAME HEADER LABEL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_file.cmake: -D${var}=... is missing")
  endif()
endforeach()
file(READ "${INPUT}" hex HEX)
# 24 bytes per line, each as a character literal ('\xNN' is valid for every byte, unlike 0xNN for a
# signed char).
string(REGEX REPLACE "([0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f])"
       "\\1\n" hex "${hex}")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
set(text "// Generated from ${LABEL} by cmake/embed_file.cmake at build time: edit ${LABEL}, not this file.
#include \"${HEADER}\"

namespace sinklab {

extern const char ${NAME}[] = {
${bytes}'\\0'};

}  // namespace sinklab
")
file(WRITE "${OUTPUT}" "${text}")
