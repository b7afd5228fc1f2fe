# Warnings travel through a private INTERFACE target that is never installed or exported.
add_library(roofline_warnings INTERFACE)
target_compile_options(roofline_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall>)
