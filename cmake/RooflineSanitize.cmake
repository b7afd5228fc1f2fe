# ROOFLINE_SANITIZE: every C++ object of this project built and linked with AddressSanitizer and
# UndefinedBehaviorSanitizer (any finding aborts the test that hit it). test/run.sh builds the CPU
# tests this way in a second build tree and runs them (build-sanitize/). Device code is not
# instrumented; host code linked by nvcc gets the runtime through the host compiler.
# A project-wide option rather than a target property: a sanitizer must instrument every object
# that shares memory with the code under test, libraries included.
option(ROOFLINE_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
if(ROOFLINE_SANITIZE)
  set(flags -fsanitize=address,undefined -fno-sanitize-recover=all)
  # -Wmaybe-uninitialized guesses wrong under ASan's instrumentation (GCC's documentation says
  # so); it fired only inside the standard library's headers.
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${flags};-fno-omit-frame-pointer;-Wno-maybe-uninitialized>")
  add_link_options("$<$<LINK_LANGUAGE:CXX>:${flags}>"
                   "$<$<LINK_LANGUAGE:CUDA>:-Xcompiler=-fsanitize=address,undefined>")
endif()
