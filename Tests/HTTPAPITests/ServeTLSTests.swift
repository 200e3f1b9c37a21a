import Foundation
import Testing
import TestSupport

/// `--tls-cert/--tls-key`: libmicrohttpd's own TLS with a certificate the test makes with openssl.
@Suite(.serialized)
struct ServeTLSTests {
    @Test func servesHTTPSWithTheGivenCertificate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let certificate = directory.path + "/cert.pem", key = directory.path + "/key.pem"
        let made = try Processes.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                                                          "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        #expect(made.status == 0, "\(made)")
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--tls-cert", certificate, "--tls-key", key,
                                                            "--store", "sqlite:\(directory.path)/tls.sqlite"])
        try FreePort.waitUntilListening(port, process: server)
        let secure = try Processes.run("/usr/bin/curl", ["-s", "--max-time", "10", "--cacert", certificate, "https://127.0.0.1:\(port)/healthz"])
        let plain = try Processes.run("/usr/bin/curl", ["-s", "--max-time", "10", "http://127.0.0.1:\(port)/healthz"])
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(secure.status == 0 && secure.output == #"{"status":"ok"}"#, "\(secure)")
        #expect(plain.status != 0 && !plain.output.contains("ok"), "plain HTTP gets no answer: \(plain)")
        #expect(ended.status == 0 && ended.output.contains("listening on https://127.0.0.1:\(port)"), "\(ended)")

        // Material that is not PEM: one Error line and exit 69, nothing served.
        try "not a key".write(toFile: key, atomically: true, encoding: .utf8)
        let refused = try Processes.run(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(try FreePort.find())", "--tls-cert", certificate,
                                                           "--tls-key", key, "--store", "sqlite:\(directory.path)/tls.sqlite"])
        #expect(refused.status == 69 && refused.errors.hasPrefix("Error: cannot listen on 127.0.0.1:"), "\(refused)")
        let missing = try Processes.run(Processes.evtool, ["serve", "--no-auth", "--tls-cert", certificate, "--store", "sqlite:\(directory.path)/tls.sqlite"])
        #expect(missing.status == 64 && missing.errors.contains("give both --tls-cert and --tls-key"), "\(missing)")
        // An address that is not one is the command line's mistake (64), found before any store is opened.
        for listen in ["256.1.1.1:0", "localhost:8080", "[::zz]:80", "8080", "1.2.3.4:70000"] {
            let wrong = try Processes.run(Processes.evtool, ["serve", "--no-auth", "--listen", listen, "--store", "sqlite:\(directory.path)/never.sqlite"])
            #expect(wrong.status == 64 && wrong.errors.hasPrefix("Error: '--listen' must be"), "\(listen): \(wrong)")
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/never.sqlite"), "\(listen)")
        }
    }
}
