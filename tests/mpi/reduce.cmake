# tests/mpi/reduce.cmake — issue 5: `gpipe reduce`, `stats`, `verify` through the CLI at 1-4 ranks
# against exact Python references (math.fsum, integers, fractions); included from
# tests/mpi/CMakeLists.txt. Bit-identical results across the rank counts and panel sizes follow
# from every run matching the same exact reference.
foreach(np 1 2 3 4)
  add_test(NAME mpi_reduce_np${np}
           COMMAND ${GP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_reduce.py
                   --gpipe $<TARGET_FILE:gpipe> --np ${np} --timeout 120)
  set_tests_properties(mpi_reduce_np${np} PROPERTIES LABELS "mpi;reduce" TIMEOUT 1800)
endforeach()
