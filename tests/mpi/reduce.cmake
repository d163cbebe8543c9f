# tests/mpi/reduce.cmake — issue 5: `gpipe reduce`, `stats`, `verify` through the CLI against
# exact Python references (math.fsum, integers, fractions); included from tests/mpi/CMakeLists.txt.
# Bit-identical results across rank counts and panel sizes follow from every run matching the
# same exact reference: the whole suite runs at 3 ranks, the most demanding cases (f64 with
# specials at four panel sizes, f32, argmin/argmax, stats, verify) at 1, 2 and 4 ranks — the full suite at
# every rank count takes ~30 min on a 2-core CI machine.
# Each rank count is two ctest tests, _a (the f64 cases: 108 runs of reduce_f64 alone, and f32 in
# the full suite) and _b (the rest), so that the two halves run side by side with other tests
# instead of one ~20 min test at the end of the run. np2 runs in the sanitized tree
# (tests/CMakeLists.txt, GP_SAN_ONLY), the others in the release tree.
set(GP_REDUCE_SUBSET_A --only reduce_f64)
set(GP_REDUCE_SUBSET_B --only reduce_f32 --only reduce_arg --only stats_f64 --only verify_f64)
set(GP_REDUCE_FULL_A --only reduce_f64 --only reduce_f32)
set(GP_REDUCE_FULL_B --skip reduce_f64 --skip reduce_f32)
foreach(np 1 2 3 4)
  foreach(part a b)
    string(TOUPPER ${part} P)
    if(np EQUAL 3)
      set(sel ${GP_REDUCE_FULL_${P}})
    else()
      set(sel ${GP_REDUCE_SUBSET_${P}})
    endif()
    add_test(NAME mpi_reduce_np${np}_${part}
             COMMAND ${GP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_reduce.py
                     --gpipe $<TARGET_FILE:gpipe> --np ${np} --timeout 120 ${sel})
    set_tests_properties(mpi_reduce_np${np}_${part} PROPERTIES LABELS "mpi;reduce" TIMEOUT 1800)
  endforeach()
endforeach()
