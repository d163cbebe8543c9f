# tests/mpi/reduce.cmake — issue 5: `gpipe reduce`, `stats`, `verify` through the CLI against
# exact Python references (math.fsum, integers, fractions); included from tests/mpi/CMakeLists.txt.
# Bit-identical results across rank counts and panel sizes follow from every run matching the
# same exact reference: the whole suite runs at 3 ranks, the most demanding cases (f64 with
# specials at four panel sizes, f32, argmin/argmax, stats, verify) at 1, 2 and 4 ranks — the full suite at
# every rank count takes ~30 min on a 2-core CI machine.
set(GP_REDUCE_SUBSET --only reduce_f64 --only reduce_f32 --only reduce_arg --only stats_f64 --only verify_f64)
foreach(np 1 2 3 4)
  if(np EQUAL 3)
    set(sel "")
  else()
    set(sel ${GP_REDUCE_SUBSET})
  endif()
  add_test(NAME mpi_reduce_np${np}
           COMMAND ${GP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_reduce.py
                   --gpipe $<TARGET_FILE:gpipe> --np ${np} --timeout 120 ${sel})
  set_tests_properties(mpi_reduce_np${np} PROPERTIES LABELS "mpi;reduce" TIMEOUT 1800)
endforeach()
