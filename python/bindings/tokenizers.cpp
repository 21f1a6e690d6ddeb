// sinklab.tokenizer(path): the C++ tokenizers (tokenizers/tokenizer.h, docs/tokenizers.md) for Python.
// Text may be a str or bytes (bytes may hold invalid UTF-8, read as U+FFFD as in C++); the GIL is
// released while a text is encoded or decoded.
#include <pybind11/stl.h>

#include <limits>

#include "bindings/bindings.h"
#include "tokenizers/tokenizer.h"

namespace py = pybind11;

namespace sinklab::python {
namespace {

std::string text_bytes(const py::object& text) {
  if (py::isinstance<py::bytes>(text)) return text.cast<std::string>();
  if (!py::isinstance<py::str>(text)) throw py::type_error("encode: text must be str or bytes");
  // surrogatepass: a lone surrogate cannot be UTF-8; its bytes are then read as U+FFFD like any invalid byte.
  return py::reinterpret_steal<py::object>(PyUnicode_AsEncodedString(text.ptr(), "utf-8", "surrogatepass"))
      .cast<std::string>();
}

}  // namespace

void bind_tokenizers(py::module_& m) {
  py::class_<Tokenizer>(m, "Tokenizer")
      .def_static("from_path", [](const std::string& path) { return Tokenizer::from_path(path); }, py::arg("path"))
      .def(
          "encode",
          [](const Tokenizer& t, const py::object& text, bool add_special_tokens) {
            const std::string bytes = text_bytes(text);
            py::gil_scoped_release release;
            return t.encode(bytes, add_special_tokens);
          },
          py::arg("text"), py::arg("add_special_tokens") = true)
      .def(
          "decode",
          [](const Tokenizer& t, const std::vector<int64_t>& ids, bool skip_special_tokens) {
            std::vector<int32_t> narrow;
            narrow.reserve(ids.size());
            for (const int64_t id : ids) {
              if (id < 0 || id > std::numeric_limits<int32_t>::max())
                throw TokenizerError(t.source() + ": decode: id " + std::to_string(id) +
                                     " is not a token (vocabulary size " + std::to_string(t.vocab_size()) + ")");
              narrow.push_back(static_cast<int32_t>(id));
            }
            py::gil_scoped_release release;
            return t.decode(narrow, skip_special_tokens);
          },
          py::arg("ids"), py::arg("skip_special_tokens") = false)
      .def_property_readonly("vocab_size", &Tokenizer::vocab_size)
      .def_property_readonly("bos_id", &Tokenizer::bos_id)
      .def_property_readonly("eos_id", &Tokenizer::eos_id)
      .def_property_readonly("description", &Tokenizer::description)
      .def("token_to_id", &Tokenizer::token_to_id, py::arg("token"))
      .def("id_to_token", &Tokenizer::id_to_token, py::arg("id"));
}

}  // namespace sinklab::python
