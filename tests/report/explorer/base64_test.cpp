// base64 for the explorer's data files (report/explorer/base64.h).
#include "report/explorer/base64.h"

#include <gtest/gtest.h>

#include <string>

namespace sinklab {
namespace {

TEST(Base64, EncodesTheRfcVectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode(std::string("\xff\x00\x80", 3)), "/wCA");
}

}  // namespace
}  // namespace sinklab
