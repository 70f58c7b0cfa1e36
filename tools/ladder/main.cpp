#include "commands.hpp"

#include <iostream>

int main(int argc, char** argv) {
  return ladder::cli::run(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
