# The product speaks of the product: README.md, docs/, the public headers, libroofline's sources and
# the tests name formats, versions and the user's machine, never the development process
# ("issue 13", "this session", "not lent", a device budget).
#   cmake -DROOT=... -P product_words.cmake
file(GLOB_RECURSE files "${ROOT}/docs/*.md" "${ROOT}/include/*" "${ROOT}/libroofline/*.cpp"
  "${ROOT}/libroofline/*.hpp" "${ROOT}/libroofline/*.in" "${ROOT}/test/*.cpp" "${ROOT}/test/*.cu"
  "${ROOT}/test/*.cmake" "${ROOT}/test/*.txt" "${ROOT}/benchmarks/*.cpp" "${ROOT}/benchmarks/*.hpp"
  "${ROOT}/examples/*.cu" "${ROOT}/examples/*.cpp" "${ROOT}/examples/*.hpp")
list(APPEND files "${ROOT}/README.md")
list(FILTER files EXCLUDE REGEX "/test/product_words\\.cmake$")
set(found "")
foreach(f IN LISTS files)
  file(STRINGS "${f}" lines REGEX "[Ii]ssue [0-9]+|[Tt]his session|not lent|device budget|the issue's")
  foreach(l IN LISTS lines)
    file(RELATIVE_PATH rel "${ROOT}" "${f}")
    list(APPEND found "${rel}: ${l}")
  endforeach()
endforeach()
if(found)
  list(JOIN found "\n  " listed)
  message(FATAL_ERROR "development-process words in the product:\n  ${listed}")
endif()
list(LENGTH files n)
message("product words: ${n} files name no development process")
