// For tests that launch a job's PEs themselves (not under mpirun, whose launcher would end the job
// when a PE dies or exits early): this test binary started again as one PE.
#pragma once

#include <spawn.h>
#include <unistd.h>

#include <string>
#include <vector>

extern char** environ;

namespace mori::test {

// Starts this binary with --gtest_filter=`filter`, in this environment less the MPI launcher's
// variables (OMPI_*, PMIX_*, PMI_*) and less the names `extraEnv` sets, plus `extraEnv`
// ("NAME=value"). The child's pid, or -1.
inline pid_t spawnSelf(const std::string& filter, const std::vector<std::string>& extraEnv) {
  std::string exe(4096, '\0');
  const ssize_t len = readlink("/proc/self/exe", &exe[0], exe.size());
  if (len <= 0) return -1;
  exe.resize(static_cast<size_t>(len));
  auto setHere = [&extraEnv](const std::string& kv) {
    const std::string name = kv.substr(0, kv.find('=') + 1);
    for (const std::string& x : extraEnv)
      if (x.compare(0, name.size(), name) == 0) return true;
    return false;
  };
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("OMPI_", 0) == 0 || kv.rfind("PMIX_", 0) == 0 || kv.rfind("PMI_", 0) == 0 || setHere(kv)) continue;
    env.push_back(kv);
  }
  env.insert(env.end(), extraEnv.begin(), extraEnv.end());
  std::vector<char*> envp;
  for (auto& s : env) envp.push_back(&s[0]);
  envp.push_back(nullptr);
  std::string arg = "--gtest_filter=" + filter;
  char* argv[] = {&exe[0], &arg[0], nullptr};
  pid_t pid = -1;
  return posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv, envp.data()) == 0 ? pid : -1;
}

}  // namespace mori::test
