// The Catch2 main shared by the unit and integration binaries.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
