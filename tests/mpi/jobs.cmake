# tests/mpi/jobs.cmake — issue 6: `gpipe run` job files end to end at 1 and 3 ranks (every stage
# against numpy, fused == unfused, the example jobs of jobs/, malformed job files -> file:line
# and exit 2, --continue-on-error, --json); included from tests/mpi/CMakeLists.txt.

foreach(np 1 3)
  add_test(NAME mpi_jobs_np${np}
           COMMAND ${GP_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/check_jobs.py
                   --gpipe $<TARGET_FILE:gpipe> --np ${np} --timeout 120
                   --jobs-dir ${PROJECT_SOURCE_DIR}/jobs)
  set_tests_properties(mpi_jobs_np${np} PROPERTIES LABELS "mpi;jobs" TIMEOUT 600
                       ENVIRONMENT "${GP_MPI_TEST_ENV}" RESOURCE_LOCK gpipe_mpi)
endforeach()
