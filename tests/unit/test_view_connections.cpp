// grundy view's defences on a shared node, called directly: the access token (randomness,
// comparison, the cookie), the request's deadline and size limits on a socket pair, and the
// connection threads that idle connections must not exhaust. (Over HTTP: tests/python.)
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <string>

#include "grundy/error.hpp"
#include "view/access_token.hpp"
#include "view/connection_stream.hpp"
#include "view/connection_threads.hpp"

namespace grundy::testing {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

TEST(ViewToken, RandomTokensAre192BitsOfHexAndDiffer) {
    std::set<std::string> seen;
    for (int i = 0; i < 100; ++i) {
        const view::AccessToken t = view::AccessToken::random();
        ASSERT_TRUE(t.required());
        ASSERT_EQ(t.text().size(), 48u);
        ASSERT_EQ(t.text().find_first_not_of("0123456789abcdef"), std::string::npos);
        seen.insert(t.text());
    }
    EXPECT_EQ(seen.size(), 100u);
}

TEST(ViewToken, MatchesOnlyItself) {
    const view::AccessToken t = view::AccessToken::chosen("abcdefghijklmnop-1");
    EXPECT_TRUE(t.matches("abcdefghijklmnop-1"));
    EXPECT_FALSE(t.matches("abcdefghijklmnop-2"));  // the last character
    EXPECT_FALSE(t.matches("bbcdefghijklmnop-1"));  // the first
    EXPECT_FALSE(t.matches("abcdefghijklmnop-"));   // a prefix
    EXPECT_FALSE(t.matches("abcdefghijklmnop-11"));
    EXPECT_FALSE(t.matches(""));
    EXPECT_FALSE(view::AccessToken::none().required());
    EXPECT_FALSE(view::AccessToken::none().matches(""));
}

TEST(ViewToken, ChosenTokensMustBeLongAndPlain) {
    EXPECT_THROW(view::AccessToken::chosen(""), Error);
    EXPECT_THROW(view::AccessToken::chosen("short"), Error);
    EXPECT_THROW(view::AccessToken::chosen("abcdefghijklmno"), Error);  // 15 characters
    EXPECT_THROW(view::AccessToken::chosen("abcdefghijklmnop;x=1"), Error);
    EXPECT_THROW(view::AccessToken::chosen("abcdefghijklmnop q"), Error);
    EXPECT_NO_THROW(view::AccessToken::chosen("abcdefghijklmnop"));
    EXPECT_NE(view::token_problem("short").find("16"), std::string::npos);
}

TEST(ViewToken, CookieValueFindsItsCookieOnly) {
    EXPECT_EQ(view::cookie_value("a=1; grundy-view-80=T; b=2", "grundy-view-80"), "T");
    EXPECT_EQ(view::cookie_value("grundy-view-80=T", "grundy-view-80"), "T");
    EXPECT_EQ(view::cookie_value("grundy-view-8080=T", "grundy-view-80"), "");
    EXPECT_EQ(view::cookie_value("xgrundy-view-80=T", "grundy-view-80"), "");
    EXPECT_EQ(view::cookie_value("", "grundy-view-80"), "");
    EXPECT_EQ(view::cookie_value(";;", "grundy-view-80"), "");
}

struct SocketPair {
    int server = -1, client = -1;
    SocketPair() {
        int fds[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0) server = fds[0], client = fds[1];
    }
    ~SocketPair() {
        ::close(server);
        ::close(client);
    }
    void send(const std::string& s) const {
        ASSERT_EQ(::write(client, s.data(), s.size()), ssize_t(s.size()));
    }
    std::string received() const {
        char buf[512];
        const ssize_t n = ::recv(client, buf, sizeof buf, MSG_DONTWAIT);
        return n > 0 ? std::string(buf, size_t(n)) : "";
    }
};

std::string read_all(view::ConnectionStream& s) {
    std::string out;
    char buf[7];  // smaller than the stream's buffer: reads that it serves from there
    for (ssize_t n; (n = s.read(buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
    return out;
}

view::ConnectionLimits quick_limits() {
    view::ConnectionLimits l;
    l.request_deadline = milliseconds(300);
    l.max_request_bytes = 1000;
    l.max_request_lines = 10;
    return l;
}

TEST(ViewConnection, ARequestWithinTheLimitsIsReadWhole) {
    SocketPair p;
    const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    p.send(request);
    ::shutdown(p.client, SHUT_WR);
    view::ConnectionStream s(p.server, quick_limits(), Clock::now());
    EXPECT_EQ(read_all(s), request);
    EXPECT_FALSE(s.refused());
    EXPECT_EQ(s.write("ok", 2), 2);
    EXPECT_EQ(p.received(), "ok");
}

TEST(ViewConnection, HalfARequestEndsAtTheDeadlineWhateverItsPace) {
    SocketPair p;
    const auto start = Clock::now();
    view::ConnectionStream s(p.server, quick_limits(), start);
    // A byte every 50 ms: each read is quick, the whole is not.
    std::atomic<bool> done{false};
    std::thread dribble([&] {
        for (int i = 0; i < 40 && !done.load(); ++i) {
            if (::send(p.client, "G", 1, MSG_NOSIGNAL) != 1) break;
            std::this_thread::sleep_for(milliseconds(50));
        }
    });
    const std::string got = read_all(s);
    const auto took = Clock::now() - start;
    done.store(true);
    dribble.join();
    EXPECT_GE(took, milliseconds(290));
    EXPECT_LT(took, milliseconds(1500));  // the dribble would go on for 2 s
    EXPECT_LT(got.size(), 10u);
}

TEST(ViewConnection, TooLargeOrTooManyLinesIsAnswered431) {
    for (const std::string& request :
         {"GET / HTTP/1.1\r\nX: " + std::string(2000, 'a') + "\r\n\r\n",
          "GET / HTTP/1.1\r\n" + std::string(20, '\n') + "\r\n"}) {
        SocketPair p;
        p.send(request);
        view::ConnectionStream s(p.server, quick_limits(), Clock::now());
        read_all(s);
        EXPECT_TRUE(s.refused());
        EXPECT_EQ(p.received().rfind("HTTP/1.1 431 ", 0), 0u);
        EXPECT_EQ(s.write("more", 4), -1);  // nothing after the refusal
    }
}

TEST(ViewConnectionThreads, SixtyFourBlockedJobsLeaveRoomForAnother) {
    view::ConnectionThreads threads(256);
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    for (int i = 0; i < 64; ++i) threads.enqueue([released] { released.wait(); });
    std::promise<void> ran;
    threads.enqueue([&ran] { ran.set_value(); });
    EXPECT_EQ(ran.get_future().wait_for(std::chrono::seconds(30)), std::future_status::ready);
    EXPECT_LE(threads.threads(), 66u);
    release.set_value();
    threads.shutdown();
}

TEST(ViewConnectionThreads, BeyondTheBoundJobsWaitAndAllRun) {
    view::ConnectionThreads threads(2);
    std::atomic<int> done{0};
    for (int i = 0; i < 20; ++i)
        threads.enqueue([&done] {
            std::this_thread::sleep_for(milliseconds(1));
            ++done;
        });
    EXPECT_LE(threads.threads(), 2u);
    threads.shutdown();
    EXPECT_EQ(done.load(), 20);
}

}  // namespace
}  // namespace grundy::testing
