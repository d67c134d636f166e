// The typed RMA forms over the device API, for every type the API declares (test_rma_typed.hpp):
// this unit checks the 8-byte types and holds the test, which checks every size.
#include "tests/gpu/test_rma_typed.hpp"

namespace mori::test::rma_typed {

MORI_TEST_RMA_TYPED_UNIT(checkWideTypes, 8, 8)

TEST(RmaTyped, EveryType) {
  checkNarrowTypes();
  checkWideTypes();
}

}  // namespace mori::test::rma_typed
