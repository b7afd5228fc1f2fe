# libroofline.so exports its API (roofline::), the CUDA and NVTX injection entry points and the C
# entry points of framework hooks (those include/roofline/framework.h declares, every one), and
# none of the C++ standard library's instantiations: exported, they stand in for those of a library
# loaded after it (PyTorch's import aborted with "free(): invalid pointer" in a std::locale
# destructor resolved into libroofline.so). libroofline/exports.map keeps them local.
#   cmake -DNM=... -DLIB=.../libroofline.so -DHEADER=.../framework.h -P exports.cmake
cmake_minimum_required(VERSION 3.25) # IN_LIST
execute_process(COMMAND "${NM}" -D --defined-only -C "${LIB}" OUTPUT_VARIABLE symbols
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${LIB} failed (${rc})")
endif()
# The C entry points: those include/roofline/framework.h declares, each exported.
file(STRINGS "${HEADER}" declarations REGEX "^(int|void) roofline_[a-z_]+\\(")
set(entries "")
foreach(d IN LISTS declarations)
  string(REGEX REPLACE "^(int|void) (roofline_[a-z_]+)\\(.*" "\\2" entry "${d}")
  list(APPEND entries "${entry}")
  if(NOT symbols MATCHES "[ \n]${entry}\n")
    message(FATAL_ERROR "${entry}, declared in framework.h, is not exported")
  endif()
endforeach()
string(REPLACE "\n" ";" lines "${symbols}")
set(foreign "")
set(n 0)
foreach(l IN LISTS lines)
  if(l STREQUAL "")
    continue()
  endif()
  math(EXPR n "${n} + 1")
  string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] " "" name "${l}")
  if(NOT name MATCHES "roofline::" AND NOT name MATCHES "^InitializeInjection(Nvtx2)?$"
     AND NOT name IN_LIST entries)
    list(APPEND foreign "${name}")
  endif()
endforeach()
if(foreign)
  list(LENGTH foreign k)
  list(SUBLIST foreign 0 20 shown)
  list(JOIN shown "\n  " listed)
  message(FATAL_ERROR "${k} exported symbols outside libroofline's API:\n  ${listed}")
endif()
message("exports: ${n} symbols, all libroofline's own")
