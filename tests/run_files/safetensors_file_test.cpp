// safetensors files (run_files/safetensors_file.h): the writer's exact layout, a round trip that keeps
// every bit, order and metadata, and one clear SafetensorsError naming the file for each way a file
// can be wrong (truncated length or header, bad JSON, wrong dtype, offsets out of range, overlapping,
// with gaps or trailing bytes, shapes that do not match the byte sizes, repeated names).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "core/io/file_read.h"
#include "run_files/safetensors_file.h"
#include "tests/support/test_dir.h"

namespace sinklab {
namespace {

using sinklab::testing::fresh_test_dir;
using sinklab::testing::write_text;

// A file from a header text and raw data bytes, with the length the header really has.
std::string raw_file(const std::string& header, const std::string& data) {
  const uint64_t n = header.size();
  return std::string(reinterpret_cast<const char*>(&n), 8) + header + data;
}

std::string floats(std::initializer_list<float> v) {
  return std::string(reinterpret_cast<const char*>(std::data(v)), v.size() * sizeof(float));
}

std::string decode_error(const std::string& bytes) {
  try {
    decode_safetensors(bytes, "bad.safetensors");
  } catch (const SafetensorsError& e) {
    return e.what();
  }
  return "no error";
}

// The message starts with the file and says what is wrong.
void expect_error(const std::string& bytes, const std::string& what) {
  const std::string error = decode_error(bytes);
  EXPECT_EQ(error.rfind("safetensors file bad.safetensors: ", 0), 0u) << error;
  EXPECT_NE(error.find(what), std::string::npos) << "expected \"" << what << "\" in: " << error;
}

std::vector<NamedTensor> sample_tensors() {
  return {{"blocks.0.attn.w_q.weight", {2, 3}, {1, -2, 3.5f, 0, -0.0f, 1e-30f}},
          {"a_scalar", {}, {std::numeric_limits<float>::quiet_NaN()}},
          {"empty", {0, 4}, {}},
          {"head.bias", {3}, {std::numeric_limits<float>::infinity(), 7, 8}}};
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

TEST(Safetensors, WritesTheDocumentedLayout) {
  const std::string bytes = encode_safetensors({{"w", {2}, {1.0f, 2.0f}}}, {{"k", "v"}}, "x");
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  const std::string header = bytes.substr(8, n);
  EXPECT_EQ(header.rfind(
                "{\"__metadata__\":{\"k\":\"v\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", 0),
            0u)
      << header;
  EXPECT_EQ((8 + n) % 8, 0u) << "data starts 8-byte aligned";
  EXPECT_EQ(header[header.find_last_not_of(' ')], '}') << "padded with spaces after the JSON";
  EXPECT_EQ(bytes.substr(8 + n), floats({1.0f, 2.0f}));
}

TEST(Safetensors, RoundTripKeepsOrderShapesMetadataAndEveryBit) {
  const auto dir = fresh_test_dir();
  const auto tensors = sample_tensors();
  const SafetensorsMetadata meta{{"sinklab_config", "model:\n  d_model: 16\n"}, {"z", "\u00e9\"\\"}};
  write_safetensors(dir / "m.safetensors", tensors, meta);
  const SafetensorsContent back = read_safetensors(dir / "m.safetensors");
  ASSERT_EQ(back.tensors.size(), tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    EXPECT_EQ(back.tensors[i].name, tensors[i].name);
    EXPECT_EQ(back.tensors[i].shape, tensors[i].shape);
    EXPECT_TRUE(same_bits(back.tensors[i].values, tensors[i].values)) << tensors[i].name;
  }
  EXPECT_EQ(back.metadata, meta);
  // Writing what was read gives the same bytes.
  EXPECT_EQ(encode_safetensors(back.tensors, back.metadata, "again"),
            sinklab::testing::read_text(dir / "m.safetensors"));
}

TEST(Safetensors, ReadsFilesWhoseHeaderListsTensorsOutOfDataOrder) {
  // As Python writers do: keys sorted by name, data in another order.
  const std::string header =
      R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  const SafetensorsContent c = decode_safetensors(raw_file(header, floats({1, 2})), "x");
  ASSERT_EQ(c.tensors.size(), 2u);
  EXPECT_EQ(c.tensors[0].name, "b");
  EXPECT_EQ(c.tensors[0].values, std::vector<float>{1});
  EXPECT_EQ(c.tensors[1].name, "a");
  EXPECT_EQ(c.tensors[1].values, std::vector<float>{2});
  EXPECT_TRUE(c.metadata.empty());
}

TEST(Safetensors, TruncatedLengthOrHeader) {
  expect_error(std::string("\x10\x00\x00", 3), "truncated: 3 bytes, fewer than the 8-byte header length");
  std::string cut = raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", floats({1}));
  expect_error(cut.substr(0, 20), "truncated header: it announces 54 bytes, the file has 12 after the length");
  const uint64_t huge = uint64_t{1} << 40;
  expect_error(std::string(reinterpret_cast<const char*>(&huge), 8) + "{}", "header length 1099511627776 is more than");
}

TEST(Safetensors, HeaderMustBeAJsonObject) {
  expect_error(raw_file("[1, 2]", ""), "the header is not a JSON object");
  expect_error(raw_file("{\"w\": ", ""), "the header is not valid JSON");
  expect_error(raw_file("", ""), "the header is not a JSON object");
  expect_error(raw_file(R"({"w":[]})", ""), "tensor w: expected an object");
  expect_error(raw_file(R"({"__metadata__":{"k":1}})", ""), "__metadata__ entry \"k\" is not a string");
}

TEST(Safetensors, WrongDtypeIsNamed) {
  expect_error(raw_file(R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", std::string(8, '\0')),
               "tensor w: dtype F64 is not supported (only F32, float32)");
  expect_error(raw_file(R"({"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})", std::string(4, '\0')),
               "tensor w: dtype BF16 is not supported");
}

TEST(Safetensors, OffsetsOutOfRange) {
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", floats({1})),
               "tensor w: data_offsets [0, 8] reach past the data, which has 4 bytes");
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})", floats({1, 2})),
               "tensor w: data_offsets [8, 4] end before they begin");
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", floats({1})),
               "tensor w: data_offsets [-4,0] is not [begin, end]");
}

TEST(Safetensors, OverlapsGapsAndTrailingBytes) {
  expect_error(
      raw_file(
          R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
          floats({1, 2})),
      "tensors a and b overlap in the data");
  expect_error(raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", floats({1, 2})),
               "bytes 0 .. 4 of the data belong to no tensor");
  expect_error(raw_file(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", floats({1, 2})),
               "4 bytes of data after the last tensor belong to no tensor");
}

TEST(Safetensors, ShapeMustMatchTheByteSize) {
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", floats({1, 2})),
               "tensor w: shape [3] needs 12 bytes of F32, but data_offsets [0, 8] hold 8");
  // A product that overflows 64 bits is refused, not wrapped around to a small size.
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,4],"data_offsets":[0,4]}})", floats({1})),
               "tensor w: shape [4294967296, 4294967296, 4] is too large");
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", floats({1})),
               "tensor w: shape [-1] holds something other than a non-negative integer");
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", floats({1})),
               "holds something other than a non-negative integer");
  expect_error(raw_file(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", floats({1})), "tensor w: no \"shape\"");
  expect_error(raw_file(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", floats({1})),
               "tensor w: unknown field \"x\"");
}

TEST(Safetensors, RepeatedOrEmptyNames) {
  expect_error(
      raw_file(
          R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
          floats({1, 2})),
      "the header names \"w\" twice");
  expect_error(raw_file(R"({"":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", floats({1})),
               "a tensor has an empty name");
}

TEST(Safetensors, WriterRefusesWhatItCannotWrite) {
  EXPECT_THROW(encode_safetensors({{"w", {2, 2}, {1, 2, 3}}}, {}, "x"), SafetensorsError);
  EXPECT_THROW(encode_safetensors({{"w", {1}, {1}}, {"w", {1}, {2}}}, {}, "x"), SafetensorsError);
  EXPECT_THROW(encode_safetensors({{"__metadata__", {1}, {1}}}, {}, "x"), SafetensorsError);
}

template <class T>
std::string raw(std::initializer_list<T> values) {
  return std::string(reinterpret_cast<const char*>(std::data(values)), values.size() * sizeof(T));
}

std::string reader_error(const std::filesystem::path& path, const std::string& tensor = "") {
  try {
    const SafetensorsReader reader(path);
    if (!tensor.empty()) reader.read(tensor);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

// Half and bfloat16 bit patterns with known values: normal, negative, largest, subnormal, zero, inf.
TEST(SafetensorsReader, ReadsOneTensorAtATimeConvertingHalfAndBfloat16) {
  const auto dir = fresh_test_dir();
  const std::string header =
      R"({"__metadata__":{"format":"pt"},"h":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]},)"
      R"("b":{"dtype":"BF16","shape":[3],"data_offsets":[12,18]},"f":{"dtype":"F32","shape":[1],"data_offsets":[18,22]},)"
      R"("i":{"dtype":"I64","shape":[1],"data_offsets":[22,30]}})";
  const std::string data = raw<uint16_t>({0x3c00, 0xc000, 0x7bff, 0x0001, 0x8000, 0x7c00}) +
                           raw<uint16_t>({0x3f80, 0xc0a0, 0x0000}) + floats({2.5f}) + raw<int64_t>({7});
  write_text(dir / "m.safetensors", raw_file(header, data));
  const SafetensorsReader reader(dir / "m.safetensors");
  ASSERT_EQ(reader.entries().size(), 4u);
  EXPECT_EQ(reader.entries()[0].name, "h");  // data order
  EXPECT_EQ(reader.entries()[3].dtype, "I64");
  EXPECT_EQ(reader.metadata(), (SafetensorsMetadata{{"format", "pt"}}));
  const NamedTensor h = reader.read("h");
  EXPECT_EQ(h.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(h.values, (std::vector<float>{1.0f, -2.0f, 65504.0f, std::ldexp(1.0f, -24), -0.0f,
                                          std::numeric_limits<float>::infinity()}));
  EXPECT_TRUE(std::signbit(h.values[4]));
  EXPECT_EQ(reader.read("b").values, (std::vector<float>{1.0f, -5.0f, 0.0f}));
  EXPECT_EQ(reader.read("f").values, (std::vector<float>{2.5f}));
  EXPECT_EQ(reader.find("nothing"), nullptr);
  const std::string path = (dir / "m.safetensors").string();
  EXPECT_EQ(reader_error(dir / "m.safetensors", "i"),
            "safetensors file " + path + ": tensor i: dtype I64 cannot be read as float32 (F32, F16 or BF16 only)");
  EXPECT_EQ(reader_error(dir / "m.safetensors", "nothing"), "safetensors file " + path + ": has no tensor nothing");
}

// The header is checked on open as decode_safetensors checks it, with the file's size for the data.
TEST(SafetensorsReader, DamagedFilesAreNamedOnOpen) {
  const auto dir = fresh_test_dir();
  const std::string good = raw_file(R"({"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}})", raw<uint16_t>({1, 2}));
  write_text(dir / "cut.safetensors", good.substr(0, good.size() - 2));
  EXPECT_NE(reader_error(dir / "cut.safetensors").find("reach past the data, which has 2 bytes"), std::string::npos)
      << reader_error(dir / "cut.safetensors");
  write_text(dir / "short.safetensors", good.substr(0, 20));
  EXPECT_NE(reader_error(dir / "short.safetensors").find("truncated header"), std::string::npos);
  write_text(dir / "tiny.safetensors", good.substr(0, 5));
  EXPECT_NE(reader_error(dir / "tiny.safetensors").find("truncated: 5 bytes"), std::string::npos);
  write_text(dir / "json.safetensors", raw_file(R"({"w": [)", ""));
  EXPECT_NE(reader_error(dir / "json.safetensors").find("the header is not valid JSON"), std::string::npos);
  write_text(dir / "size.safetensors", raw_file(R"({"w":{"dtype":"F16","shape":[3],"data_offsets":[0,4]}})",
                                                raw<uint16_t>({1, 2})));
  EXPECT_NE(reader_error(dir / "size.safetensors").find("needs 6 bytes of F16"), std::string::npos)
      << reader_error(dir / "size.safetensors");
  write_text(dir / "dtype.safetensors",
             raw_file(R"({"w":{"dtype":"Q4","shape":[1],"data_offsets":[0,4]}})", floats({1})));
  EXPECT_NE(reader_error(dir / "dtype.safetensors").find("dtype Q4 is not a safetensors dtype"), std::string::npos);
  EXPECT_NE(reader_error(dir / "missing.safetensors").find("cannot open"), std::string::npos);
  EXPECT_NE(reader_error(dir).find("is a directory"), std::string::npos);
}

TEST(Safetensors, NotAFile) {
  const auto dir = fresh_test_dir();
  EXPECT_THROW(read_safetensors(dir), FileReadError);
  EXPECT_THROW(read_safetensors(dir / "missing.safetensors"), FileReadError);
}

}  // namespace
}  // namespace sinklab
