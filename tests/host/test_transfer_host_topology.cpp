// The host description the transfers study prints beside its host-copy table: read from a fake
// /proc and /sys tree, so the parsing is checked on any machine.
#include "transfers/host_topology.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace ladder::test {
namespace {

namespace fs = std::filesystem;
using transfers::describe;
using transfers::HostTopology;
using transfers::read_host_topology;

class FakeHost : public ::testing::Test {
protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("ladder-host-" + std::to_string(std::random_device{}()));
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& path, const std::string& text) {
    fs::create_directories((root_ / path).parent_path());
    std::ofstream(root_ / path) << text;
  }
  fs::path root_;
};

TEST_F(FakeHost, ReadsTheModelAndTheNodesInOrder) {
  write("proc/cpuinfo",
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9454 "
        "48-Core Processor  \nflags\t: fpu vme hypervisor lahf_lm\n\nprocessor\t: 1\nmodel name\t: "
        "other\n");
  write("sys/devices/system/node/node1/cpulist", "8-15\n");
  write("sys/devices/system/node/node0/cpulist", "0-7\n");
  write("sys/devices/system/node/node10/cpulist", "\n");
  write("sys/devices/system/node/possible", "0-1\n");
  fs::create_directories(root_ / "sys/devices/system/node/nodeX");
  const HostTopology host = read_host_topology(root_.string());
  EXPECT_EQ(host.cpu_model, "AMD EPYC 9454 48-Core Processor");
  EXPECT_TRUE(host.virtual_machine);
  ASSERT_EQ(host.nodes.size(), 3u);
  EXPECT_EQ(host.nodes[0].id, 0);
  EXPECT_EQ(host.nodes[0].cpus, "0-7");
  EXPECT_EQ(host.nodes[1].id, 1);
  EXPECT_EQ(host.nodes[1].cpus, "8-15");
  EXPECT_EQ(host.nodes[2].id, 10);
  EXPECT_EQ(host.nodes[2].cpus, "");
  const std::string line = describe(host);
  EXPECT_NE(line.find("host: AMD EPYC 9454 48-Core Processor, a virtual machine, "),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("3 NUMA nodes (node 0: CPUs 0-7; node 1: CPUs 8-15; node 10: CPUs none)"),
            std::string::npos)
      << line;
}

TEST_F(FakeHost, MissingFilesGiveEmptyFieldsAndSayUnknown) {
  const HostTopology host = read_host_topology(root_.string());
  EXPECT_TRUE(host.cpu_model.empty());
  EXPECT_TRUE(host.nodes.empty());
  EXPECT_FALSE(host.virtual_machine);
  const std::string line = describe(host);
  EXPECT_NE(line.find("CPU model unknown"), std::string::npos) << line;
  EXPECT_NE(line.find("NUMA layout unknown"), std::string::npos) << line;
}

TEST_F(FakeHost, OneNodeIsSingularAndBareMetalSaysNothing) {
  write("proc/cpuinfo", "model name\t: Xeon\nflags\t: fpu hypervisorx avx2\n");
  write("sys/devices/system/node/node0/cpulist", "0-1\n");
  const HostTopology host = read_host_topology(root_.string());
  EXPECT_FALSE(host.virtual_machine);
  const std::string line = describe(host);
  EXPECT_EQ(line.find("virtual"), std::string::npos) << line;
  EXPECT_NE(line.find("1 NUMA node (node 0: CPUs 0-1)"), std::string::npos) << line;
}

} // namespace
} // namespace ladder::test
