#include "shmem/team_logic.hpp"

#include <stdio.h>
#include <strings.h>

#include <map>

namespace mori::shmem::team {
namespace {

std::string describe(const SplitRecord& r) {
  char buf[160];
  if (r.kind == static_cast<int32_t>(SplitKind::Strided))
    snprintf(buf, sizeof(buf), "split_strided(start %d, stride %d, size %d, num_contexts %d)", r.start, r.stride,
             r.size, r.contexts[0]);
  else if (r.kind == static_cast<int32_t>(SplitKind::TwoD))
    snprintf(buf, sizeof(buf), "split_2d(xrange %d, num_contexts %d/%d)", r.start, r.contexts[0], r.contexts[1]);
  else
    snprintf(buf, sizeof(buf), "an unknown call (kind %d)", r.kind);
  return buf;
}

}  // namespace

bool callerEntry(const std::string& setting) { return strcasecmp(setting.c_str(), "caller") == 0; }

std::string entrySettingsDiffer(const std::vector<uint8_t>& callerEntry) {
  const auto name = [](uint8_t caller) { return caller ? "caller" : "wait"; };
  for (size_t pe = 1; pe < callerEntry.size(); ++pe) {
    if (callerEntry[pe] == callerEntry[0]) continue;
    char buf[320];
    snprintf(buf, sizeof(buf),
             "MORI_SHMEM_COLLECTIVE_ENTRY differs between PEs: PE 0 has %s, PE %zu has %s (a push of a PE that waits "
             "for every member's entry would wait for ever for one that does not signal it: start every PE with the "
             "same setting)",
             name(callerEntry[0]), pe, name(callerEntry[pe]));
    return buf;
  }
  return "";
}

std::string checkStrided(int parentSize, int start, int stride, int size) {
  char buf[200];
  if (size < 1) {
    snprintf(buf, sizeof(buf), "size %d must be at least 1", size);
  } else if (start < 0 || start >= parentSize) {
    snprintf(buf, sizeof(buf), "start %d is not a PE of the parent team (0..%d)", start, parentSize - 1);
  } else if (size > 1 && stride < 1) {
    snprintf(buf, sizeof(buf), "stride %d must be at least 1", stride);
  } else if (size > 1 && (static_cast<int64_t>(size) - 1) * stride + start >= parentSize) {
    snprintf(buf, sizeof(buf),
             "the last PE, start %d + (size %d - 1) * stride %d = %lld, is outside the parent team (%d PEs)", start,
             size, stride, static_cast<long long>(start + (static_cast<int64_t>(size) - 1) * stride), parentSize);
  } else {
    return "";
  }
  return buf;
}

std::string check2d(int parentSize, int xrange) {
  (void)parentSize;
  if (xrange >= 1) return "";
  char buf[80];
  snprintf(buf, sizeof(buf), "xrange %d must be at least 1", xrange);
  return buf;
}

std::vector<int> sameIndexOnEveryHost(const std::vector<std::string>& hosts, int me) {
  std::vector<int> index(hosts.size()), members;
  std::map<std::string, int> seen;  // PEs met so far on each host
  for (size_t pe = 0; pe < hosts.size(); ++pe) index[pe] = seen[hosts[pe]]++;
  for (size_t pe = 0; pe < hosts.size(); ++pe)
    if (index[pe] == index[static_cast<size_t>(me)]) members.push_back(static_cast<int>(pe));
  return members;
}

std::vector<int> stridedMembers(int start, int stride, int size) {
  std::vector<int> m(static_cast<size_t>(size > 0 ? size : 0));
  for (int i = 0; i < size; ++i) m[static_cast<size_t>(i)] = start + i * (size > 1 ? stride : 1);
  return m;
}

void split2d(int parentSize, int xrange, int me, std::vector<int>* x, std::vector<int>* y) {
  const int cols = xrange < parentSize ? xrange : parentSize;
  const int row = me / cols, col = me % cols;
  x->clear();
  y->clear();
  for (int p = row * cols; p < parentSize && p < (row + 1) * cols; ++p) x->push_back(p);
  for (int p = col; p < parentSize; p += cols) y->push_back(p);
}

std::string verdict(const std::vector<SplitRecord>& records, const char* call) {
  if (records.empty()) return "";
  const SplitRecord& a = records[0];
  for (size_t i = 0; i < records.size(); ++i) {
    const SplitRecord& r = records[i];
    if (r.magic != kSplitMagic)
      return std::string(call) + ": parent PE " + std::to_string(i) + " (world PE " + std::to_string(r.worldPe) +
             ") sent no valid record: it is not making a team call";
    if (r.kind != a.kind || r.sequence != a.sequence || r.start != a.start || r.stride != a.stride ||
        r.size != a.size || r.contexts[0] != a.contexts[0] || r.contexts[1] != a.contexts[1]) {
      std::string seq;
      if (r.sequence != a.sequence)
        seq = " (its split #" + std::to_string(r.sequence) + " from this parent, PE 0's #" +
              std::to_string(a.sequence) + ")";
      return std::string(call) + ": the PEs of the parent team disagree: parent PE 0 (world PE " +
             std::to_string(a.worldPe) + ") called " + describe(a) + " but parent PE " + std::to_string(i) +
             " (world PE " + std::to_string(r.worldPe) + ") called " + describe(r) + seq +
             "; every parent PE must make the same call with the same arguments";
    }
  }
  for (size_t i = 0; i < records.size(); ++i)
    if (!records[i].localOk)
      return std::string(call) + ": parent PE " + std::to_string(i) + " (world PE " +
             std::to_string(records[i].worldPe) + ") rejected the call (see its log)";
  return "";
}

std::vector<int> commonFreeSlots(const std::vector<SplitRecord>& records, int count, int first) {
  uint32_t free = ~0u;
  for (const SplitRecord& r : records) free &= r.freeSlots;
  std::vector<int> slots;
  for (int k = first; k < 32 && static_cast<int>(slots.size()) < count; ++k)
    if (free & (1u << k)) slots.push_back(k);
  if (static_cast<int>(slots.size()) < count) slots.clear();
  return slots;
}

bool asStrided(const std::vector<int>& worldPes, int* start, int* stride) {
  if (worldPes.empty()) return false;
  *start = worldPes[0];
  *stride = worldPes.size() > 1 ? worldPes[1] - worldPes[0] : 1;
  if (*stride < 1) return false;
  for (size_t i = 1; i < worldPes.size(); ++i)
    if (worldPes[i] - worldPes[i - 1] != *stride) return false;
  return true;
}

int indexIn(const std::vector<int>& list, int value) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i] == value) return static_cast<int>(i);
  return -1;
}

bool p2pClique(const std::vector<uint8_t>& p2pPairs, int nPes, const std::vector<int>& members) {
  const size_t n = static_cast<size_t>(nPes);
  for (int a : members)
    for (int b : members)
      if (!p2pPairs[static_cast<size_t>(a) * n + static_cast<size_t>(b)]) return false;
  return true;
}

}  // namespace mori::shmem::team
