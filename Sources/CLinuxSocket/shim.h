// Linux socket interfaces Glibc's Swift module does not export: classic BPF socket filters
// (struct sock_filter, struct sock_fprog, SO_ATTACH_FILTER) and struct tcp_info, which the service
// uses to close its listener without resetting connections (EarshotServer/Operations/ServiceListener).
#include <linux/filter.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
