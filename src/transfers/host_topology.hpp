// What the host is, as far as a staged copy cares: the CPU model, how many logical CPUs run the
// process, and the NUMA nodes with their CPUs. A staged copy's rate depends on the host's memory
// (the fill and the copy engine's reads share it), and on a host of several nodes on where the
// pageable buffer and the pinned ring lie; the transfers study prints this beside its host-copy
// table so that two runs' rates can be told apart by their hosts.
#pragma once

#include <string>
#include <vector>

namespace ladder::transfers {

struct NumaNode {
  int id = 0;
  std::string cpus; // the kernel's cpulist, e.g. "0-7,16-23"
};

struct HostTopology {
  std::string cpu_model;        // empty where /proc/cpuinfo has no model name
  bool virtual_machine = false; // the CPU flags say "hypervisor": a guest, whose CPUs may share
                                // cores and memory bandwidth with other guests
  unsigned logical_cpus = 0;    // std::thread::hardware_concurrency()
  std::vector<NumaNode> nodes;  // by id; empty where sysfs has no node directory
};

// Reads `root`/proc/cpuinfo and `root`/sys/devices/system/node/node*/cpulist (root "/" on a real
// host; tests pass a fake tree). Missing files give empty fields, never an error.
HostTopology read_host_topology(const std::string& root = "/");

// One line for a table's footnote: "host: MODEL, a virtual machine, 16 logical CPUs, 2 NUMA nodes
// (node 0: CPUs 0-7; node 1: CPUs 8-15)".
std::string describe(const HostTopology& host);

} // namespace ladder::transfers
