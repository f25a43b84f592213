#if !os(Linux)
#error("ReMVVM Server runs on Linux only: MicroHTTP uses libmicrohttpd's epoll mode and Linux socket options (EPOLLRDHUP, eventfd).")
#endif
