// What mori-shmem-info prints about SDMA: per visible GPU, the engines the driver reports and how
// queues would be laid out (queues per SDMA peer, ring size), or why SDMA is unavailable here.
#pragma once

#include <string>

namespace mori::sdma {

std::string inventoryReport();

}  // namespace mori::sdma
