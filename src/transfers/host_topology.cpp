#include "transfers/host_topology.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <thread>

namespace ladder::transfers {

namespace {

std::string trim(std::string s) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
  return s;
}

// The first processor's model name and whether its flags include "hypervisor".
void read_cpuinfo(const std::filesystem::path& cpuinfo, HostTopology& host) {
  std::ifstream in(cpuinfo);
  bool model = false, flags = false;
  for (std::string line; (!model || !flags) && std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    const std::string key = trim(line.substr(0, colon));
    if (key == "model name" && !model) {
      host.cpu_model = trim(line.substr(colon + 1));
      model = true;
    } else if (key == "flags" && !flags) {
      host.virtual_machine =
          (" " + line.substr(colon + 1) + " ").find(" hypervisor ") != std::string::npos;
      flags = true;
    }
  }
}

// "node12" -> 12; anything else (a file such as "possible", "node", "nodeX") -> -1.
int node_id(const std::string& name) {
  if (name.size() <= 4 || name.compare(0, 4, "node") != 0)
    return -1;
  int id = 0;
  for (std::size_t i = 4; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i])) || id > 100000)
      return -1;
    id = id * 10 + (name[i] - '0');
  }
  return id;
}

} // namespace

HostTopology read_host_topology(const std::string& root) {
  const std::filesystem::path base(root);
  HostTopology host;
  read_cpuinfo(base / "proc/cpuinfo", host);
  host.logical_cpus = std::thread::hardware_concurrency();
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator(base / "sys/devices/system/node", error)) {
    const int id = node_id(entry.path().filename().string());
    if (id < 0)
      continue;
    std::ifstream in(entry.path() / "cpulist");
    std::string cpus;
    std::getline(in, cpus);
    host.nodes.push_back({id, trim(cpus)});
  }
  std::sort(host.nodes.begin(), host.nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  return host;
}

std::string describe(const HostTopology& host) {
  std::string s =
      "host: " + (host.cpu_model.empty() ? std::string("CPU model unknown") : host.cpu_model);
  if (host.virtual_machine)
    s += ", a virtual machine";
  s += ", " + std::to_string(host.logical_cpus) + " logical CPUs";
  if (host.nodes.empty())
    return s + ", NUMA layout unknown";
  s += ", " + std::to_string(host.nodes.size()) +
       (host.nodes.size() == 1 ? " NUMA node (" : " NUMA nodes (");
  for (std::size_t i = 0; i < host.nodes.size(); ++i)
    s += (i ? "; node " : "node ") + std::to_string(host.nodes[i].id) + ": CPUs " +
         (host.nodes[i].cpus.empty() ? "none" : host.nodes[i].cpus);
  return s + ")";
}

} // namespace ladder::transfers
