// A small persistent thread pool for the CPU backend: parallel_for over an index range with
// dynamic chunking; the calling thread works too.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ikwb {

// std::thread::hardware_concurrency(), read once (a system call on Linux, which a solve of a
// few microseconds would otherwise pay every time)
int hardware_threads();

class ThreadPool {
 public:
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return int(workers_.size()) + 1; }
  // calls fn(index, worker) for every index in [0, n), worker in [0, size()); blocks until done
  void parallel_for(int n, const std::function<void(int index, int worker)>& fn);

 private:
  void work(int worker);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(int, int)>* job_ = nullptr;
  int job_n_ = 0;
  std::atomic<int> next_{0};
  int generation_ = 0;
  int busy_ = 0;
  bool stop_ = false;
};

}  // namespace ikwb
