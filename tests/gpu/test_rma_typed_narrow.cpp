// The typed RMA forms of the 1-, 2- and 4-byte types (test_rma_typed.hpp).
#include "tests/gpu/test_rma_typed.hpp"

namespace mori::test::rma_typed {

MORI_TEST_RMA_TYPED_UNIT(checkNarrowTypes, 1, 4)

}  // namespace mori::test::rma_typed
