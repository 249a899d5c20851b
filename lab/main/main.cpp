#include "lab/main/cli.hpp"

int main(int argc, char** argv) { return quote_lab::run_cli(argc, argv); }
