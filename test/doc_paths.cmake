# Every repository path that README.md and docs/ name exists: paths under the top-level folders
# (libroofline/, include/, test/, docs/, examples/, benchmarks/, cmake/) and relative links to
# other documents. Patterns (with * or <...>) and paths under build folders are not checked.
#   cmake -DROOT=... -P doc_paths.cmake
file(GLOB_RECURSE docs RELATIVE "${ROOT}" "${ROOT}/docs/*.md")
list(PREPEND docs README.md)
set(missing "")
set(checked 0)
foreach(doc IN LISTS docs)
  file(READ "${ROOT}/${doc}" text)
  get_filename_component(dir "${doc}" DIRECTORY)
  # Paths in build folders and under variables ($OUT/..., build/libroofline/roofline) are outputs.
  string(REGEX REPLACE "(build[A-Za-z0-9_-]*|\\$[A-Za-z_{}]+|\\.\\.)/[A-Za-z0-9_.+/-]*" "" text "${text}")
  string(REGEX MATCHALL
    "(libroofline|include|test|docs|examples|benchmarks|cmake)/[A-Za-z0-9_.+/-]*[A-Za-z0-9_]"
    paths "${text}")
  string(REGEX MATCHALL "\\([A-Za-z0-9_./-]+\\.md[)#]" links "${text}")
  foreach(link IN LISTS links)
    string(LENGTH "${link}" n)
    math(EXPR n "${n} - 2")
    string(SUBSTRING "${link}" 1 ${n} link)
    if(link MATCHES "^(libroofline|include|test|docs|examples|benchmarks|cmake)/")
      continue() # a path from the repository's root, checked as such
    elseif(dir)
      list(APPEND paths "${dir}/${link}")
    else()
      list(APPEND paths "${link}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES paths)
  foreach(path IN LISTS paths)
    math(EXPR checked "${checked} + 1")
    get_filename_component(abs "${ROOT}/${path}" ABSOLUTE)
    if(NOT EXISTS "${abs}")
      # A path given without its extension names the files that share it (iteration_replay.*).
      file(GLOB alike "${abs}.*")
      if(NOT alike)
        list(APPEND missing "${doc}: ${path}")
      endif()
    endif()
  endforeach()
endforeach()
if(missing)
  list(JOIN missing "\n  " listed)
  message(FATAL_ERROR "documents name files that do not exist:\n  ${listed}")
endif()
message("doc paths: ${checked} paths named by the documents exist")
