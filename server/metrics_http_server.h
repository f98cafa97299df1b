// A minimal HTTP/1.1 server for Prometheus scrapes: GET /metrics answers the text `render`
// returns; any other path is 404 and any other method 405. One thread serves one connection at
// a time: requests are small (the head must fit in kMaxRequestBytes), every connection has a
// read and write timeout, and each answer closes its connection.
//
//   absl::StatusOr<std::unique_ptr<MetricsHttpServer>> server = MetricsHttpServer::Start(
//       "0.0.0.0:9464", [&metrics] { return metrics.RenderPrometheusText(); });
//   ... curl http://127.0.0.1:9464/metrics ...
//   server->reset();  // stops the thread
#ifndef VERDICT_SERVER_METRICS_HTTP_SERVER_H_
#define VERDICT_SERVER_METRICS_HTTP_SERVER_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace verdict {

class MetricsHttpServer {
 public:
  static constexpr size_t kMaxRequestBytes = 8 * 1024;
  static constexpr absl::Duration kIoTimeout = absl::Seconds(5);

  // Listens on "host:port" ("127.0.0.1:9464", "0.0.0.0:9464", "[::1]:0"; port 0 picks a free
  // one). INVALID_ARGUMENT for an address that does not parse, UNAVAILABLE when it cannot be
  // bound. `render` runs on the server's thread, once per scrape.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(
      const std::string& listen, std::function<std::string()> render);

  // Stops serving: closes the listener and joins the thread.
  ~MetricsHttpServer();

  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  // The port actually bound.
  int port() const { return port_; }

 private:
  MetricsHttpServer(int listen_fd, int wake_fd, int port, std::function<std::string()> render);

  void Serve();
  void ServeConnection(int fd);

  const int listen_fd_;
  // Written once by the destructor to wake the serving thread out of poll().
  const int wake_fd_;
  const int port_;
  const std::function<std::string()> render_;
  std::thread thread_;
};

}  // namespace verdict

#endif  // VERDICT_SERVER_METRICS_HTTP_SERVER_H_
