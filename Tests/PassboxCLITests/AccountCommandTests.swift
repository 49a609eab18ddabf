import Foundation
import PassboxHTTP
import PassboxSQLite
import PassboxTestKit
import PassboxTestSupport
import Testing

/// The account commands end to end: a real `passbox server` process, `passbox signup` on one data
/// directory, `passbox signin` on another with the Secret Key as a user types it, `account`, `signout`; and
/// the client against hostile servers.
@Suite struct AccountCommandTests {
    let password = "tulip ocean marble violin anchor"

    func passbox(_ data: String, _ args: [String], _ stdin: [String] = [], language: String = "en") throws -> Transcript.Result {
        try Transcript.execute(try Transcript.executablePath(), ["--data", data] + args, stdin: stdin, environment: ["PASSBOX_LANG": language, "XDG_RUNTIME_DIR": ""])
    }

    @Test(arguments: Backend.cases) func signUpSignInOnASecondDeviceAndSignOut(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-account")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try backend.serverArguments(directory: dir.path + "/server/server"))
        let first = dir.path + "/first", second = dir.path + "/second"

        let weak = try passbox(first, ["signup", "--server", server.origin, "--email", "me@example.org"], ["password1", "password1"])
        #expect(weak.status == 1)
        #expect(weak.stderr.contains("an account needs a strong one"))
        let differ = try passbox(first, ["signup", "--server", server.origin, "--email", "me@example.org"], [password, password + "x"])
        #expect(differ.status == 1)
        #expect(!FileManager.default.fileExists(atPath: first + "/account.json"), "nothing kept after a refused sign-up")

        let made = try passbox(first, ["signup", "--server", server.origin, "--email", "Me@Example.org"], [password, password])
        #expect(made.status == 0, "\(made.stderr)")
        let key = try #require(made.stdout.range(of: #"P1-[0-9A-Z]{6}(-[0-9A-Z]{5,6}){5}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        #expect(made.stdout.contains("Created the account me@example.org"))
        let mode = try FileManager.default.attributesOfItem(atPath: first + "/account.json")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = try passbox(first, ["signup", "--server", server.origin, "--email", "other@example.org"], [password, password])
        #expect(again.status == 1)
        #expect(again.stderr.contains("already signed in as me@example.org"))
        // A sync says what it did, what is still queued and when the last sync was; vault list names the account's.
        let synced = try passbox(first, ["sync"], [password])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("Synced:") && synced.stdout.contains("Sync: 0 changes queued; last sync"), "\(synced.stdout)")
        let vaults = try passbox(first, ["vault", "list"], [password])
        #expect(vaults.status == 0 && vaults.stdout.contains("Vaults of me@example.org"), "\(vaults.stdout)")

        // The Secret Key is checked on the device, before the network, and says what is wrong.
        let short = try passbox(second, ["signin", "--server", server.origin, "--email", "me@example.org"], [password, String(key.dropLast(2))])
        #expect(short.status == 2)
        #expect(short.stderr.contains("2 characters are missing after P1"))
        let shortDE = try passbox(second, ["signin", "--server", server.origin, "--email", "me@example.org"], [password, String(key.dropLast(2))], language: "de")
        #expect(shortDE.stderr.contains("nach P1 fehlen 2 Zeichen"))
        var swapped = Array(key)
        let i = swapped.indices.dropFirst(12).first { swapped[$0] != swapped[$0 + 1] && swapped[$0] != "-" && swapped[$0 + 1] != "-" }!
        swapped.swapAt(i, i + 1)
        let typo = try passbox(second, ["signin", "--server", server.origin, "--email", "me@example.org"], [password, String(swapped)])
        #expect(typo.stderr.contains("the Secret Key has a typo"))
        let requestsBefore = server.log.split(separator: "\n").count

        let wrong = try passbox(second, ["signin", "--server", server.origin, "--email", "me@example.org"], ["not the password", key])
        #expect(wrong.status == 3)
        #expect(wrong.stderr.contains("sign-in failed"))
        #expect(!FileManager.default.fileExists(atPath: second + "/account.json"))
        #expect(requestsBefore > 0)

        let typed = key.lowercased().replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "0", with: "o")
        let signedIn = try passbox(second, ["signin", "--server", server.origin, "--email", "ME@example.org", "--device-name", "Work laptop"], [password, typed])
        #expect(signedIn.status == 0, "\(signedIn.stderr)")
        let account = try passbox(second, ["account"])
        #expect(account.stdout.contains("Email: me@example.org"))
        #expect(account.stdout.contains("Secret Key stored on this device"))
        #expect(account.stdout.contains("Work laptop"))
        #expect(account.stdout.contains("(this device)"))
        let json = try passbox(second, ["account", "--json"])
        #expect(json.stdout.contains("\"devices\""))

        let devices = try passbox(second, ["devices"])
        #expect(devices.stdout.split(separator: "\n").count == 2)
        let activity = try passbox(second, ["activity"])
        #expect(activity.stdout.contains("account created") && activity.stdout.contains("signed in") && activity.stdout.contains("sign-in attempt"))
        let activityDE = try passbox(second, ["activity"], language: "de")
        #expect(activityDE.stdout.contains("Anmeldeversuch"))
        // The second device signs the first out; the first then learns it is signed out (exit 3).
        let firstRecord = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: first + "/account.json"))) as? [String: Any]
        let firstID = try #require(firstRecord?["deviceID"] as? String)
        // Signing a device out needs the master password: a wrong one signs nobody out.
        #expect(try passbox(second, ["devices", "signout", firstID], ["not the password"]).status == 3)
        #expect(try passbox(first, ["account"]).status == 0, "the first device is still signed in")
        #expect(try passbox(second, ["devices", "signout", firstID], [password]).stdout.contains("Signed out the device"))
        let ended = try passbox(first, ["account"])
        #expect(ended.status == 3)
        #expect(ended.stderr.contains("not signed in: its session ended"))
        let unknown = try passbox(second, ["devices", "signout", "nosuchdevice"], [password])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no signed-in device is nosuchdevice"))

        let unconfirmed = try passbox(second, ["signout"])
        #expect(unconfirmed.status == 2)
        #expect(unconfirmed.stderr.contains("passbox kit --pdf FILE"), "the kit is offered first")
        #expect(FileManager.default.fileExists(atPath: second + "/account.json"))
        #expect(try passbox(second, ["signout", "--forget-secret-key"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: second + "/account.json"))
        let gone = try passbox(second, ["account"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("not signed in to an account"))
        // The server's log names no email, token or device id.
        #expect(!server.log.contains("example.org"))
        #expect(!server.log.contains(firstID))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/pdftotext"), "skipped: pdftotext (poppler-utils) is not installed (make test installs it)"), arguments: Backend.cases)
    func theEmergencyKitHoldsEveryFieldWholeAndIsConfirmed(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-kit")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try backend.serverArguments(directory: dir.path + "/server/server"))
        let data = dir.path + "/device"
        let made = try passbox(data, ["signup", "--server", server.origin, "--email", "kay@example.org"], [password, password])
        #expect(made.stdout.contains("passbox kit --pdf FILE"))
        let key = try #require(made.stdout.range(of: #"P1-[0-9A-Z-]{38}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        #expect(try passbox(data, ["account"]).stderr.contains("reminder: save your Emergency Kit"))

        let wrong = try passbox(data, ["kit", "--pdf", dir.path + "/kit.pdf"], ["not the password"])
        #expect(wrong.status == 3)
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/kit.pdf"))
        for (language, file, steps) in [("en", "kit.pdf", "On a new device"), ("de", "kit-de.pdf", "Auf einem neuen Gerät")] {
            let r = try passbox(data, ["kit", "--pdf", dir.path + "/" + file], [password], language: language)
            #expect(r.status == 0, "\(r.stderr)")
            let mode = try FileManager.default.attributesOfItem(atPath: dir.path + "/" + file)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let text = try Transcript.execute("/usr/bin/pdftotext", ["-layout", dir.path + "/" + file, "-"], stdin: [], environment: [:]).stdout
            let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(lines.contains(key), "the Secret Key on one line, whole")
            #expect(lines.contains(server.origin) && lines.contains("kay@example.org") && lines.contains(String(key.dropFirst(3).prefix(6))))
            #expect(text.contains(steps))
            #expect(text.contains("passbox signin --server \(server.origin)"))
        }
        let mismatch = try passbox(data, ["kit", "--confirm"], ["ZZZZ"])
        #expect(mismatch.status == 1)
        #expect(try passbox(data, ["account"]).stderr.contains("reminder"))
        #expect(try passbox(data, ["kit", "--confirm"], [String(key.suffix(4)).lowercased()]).status == 0)
        #expect(!(try passbox(data, ["account"]).stderr.contains("reminder")))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/oathtool"), "skipped: oathtool is not installed (make test installs it)"), arguments: Backend.cases)
    func twoFactorSignInWithAnAuthenticatorAndRecoveryCodes(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-2fa")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try backend.serverArguments(directory: dir.path + "/server/server"))
        let first = dir.path + "/first"
        let made = try passbox(first, ["signup", "--server", server.origin, "--email", "tess@example.org"], [password, password])
        let key = try #require(made.stdout.range(of: #"P1-[0-9A-Z-]{38}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        #expect(try passbox(first, ["2fa"]).stdout.contains("Two-factor sign-in is off"))

        // Enrol as a person would: read the setup key, ask the authenticator (oathtool) for the code, type it.
        let script = """
            import json, os, re, subprocess, sys
            env = dict(os.environ, XDG_RUNTIME_DIR="", PASSBOX_LANG="en")
            p = subprocess.Popen([sys.argv[1], "--data", sys.argv[2], "2fa", "enable"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            # The master password first (a fresh proof of the sign-in key), then the setup key appears.
            p.stdin.write(sys.argv[3].encode() + b"\\n")
            p.stdin.flush()
            out = b""
            while b"setup key:" not in out or not out.endswith(b"\\n"):
                chunk = p.stdout.read1(65536)
                if not chunk:
                    break
                out += chunk
            key = re.search(rb"setup key: ([A-Z2-7]+)", out).group(1).decode()
            code = subprocess.check_output(["oathtool", "--totp", "-b", key]).strip()
            rest, err = p.communicate(code + b"\\n", timeout=30)
            print(json.dumps({"status": p.returncode, "out": (out + rest).decode(), "err": err.decode(), "key": key}))
            """
        let run = try Transcript.execute("/usr/bin/python3", ["-c", script, try Transcript.executablePath(), first, password], stdin: [], environment: [:])
        struct Enrolled: Decodable { let status: Int; let out: String; let err: String; let key: String }
        let enrolled = try JSONDecoder().decode(Enrolled.self, from: Data(run.stdout.utf8))
        #expect(enrolled.status == 0, "\(enrolled.err) \(run.stderr)")
        #expect(enrolled.out.contains("█"), "a QR code is drawn")
        let recovery = enrolled.out.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.range(of: #"^[0-9A-Z]{5}-[0-9A-Z]{5}$"#, options: .regularExpression) != nil }
        #expect(recovery.count == 10)
        func totp(_ offset: String) throws -> String {
            try Transcript.execute("/usr/bin/oathtool", ["--totp", "-b", enrolled.key, "-N", "now + \(offset)"], stdin: [], environment: [:]).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        let device2 = dir.path + "/second"
        let none = try passbox(device2, ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key])
        #expect(none.status == 3)
        #expect(none.stderr.contains("signs in with a second factor"))
        let wrong = try passbox(device2, ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key, "000000"])
        #expect(wrong.status == 3)
        #expect(wrong.stderr.contains("the two-factor code is wrong"))
        // The enrolment used this step's code; the next step's is accepted once.
        let next = try totp("30 seconds")
        #expect(try passbox(device2, ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key, next]).status == 0)
        let replay = try passbox(dir.path + "/replay", ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key, next])
        #expect(replay.status == 3, "a code is never accepted twice")
        // A recovery code signs in once.
        #expect(try passbox(dir.path + "/third", ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key, recovery[0].lowercased()]).status == 0)
        #expect(try passbox(dir.path + "/fourth", ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key, recovery[0]]).status == 3)
        #expect(try passbox(first, ["2fa"]).stdout.contains("9 recovery codes are left"))
        // Remembered for 30 days: after a sign-out, this device signs in again without a code; another does not.
        let laptop = dir.path + "/laptop"
        let remembered = try passbox(laptop, ["signin", "--server", server.origin, "--email", "tess@example.org", "--remember-device"], [password, key, recovery[1]])
        #expect(remembered.stdout.contains("remembered for 30 days"), "\(remembered.stderr)")
        #expect(try passbox(laptop, ["signout", "--forget-secret-key"]).status == 0)
        #expect(try passbox(laptop, ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key]).status == 0)
        #expect(try passbox(dir.path + "/other", ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key]).status == 3)
        #expect(try passbox(first, ["activity"]).stdout.contains("two-factor sign-in turned on"))

        #expect(try passbox(first, ["2fa", "disable"], ["not it"]).status == 3)
        #expect(try passbox(first, ["2fa", "disable"], [password]).status == 0)
        #expect(try passbox(dir.path + "/fifth", ["signin", "--server", server.origin, "--email", "tess@example.org"], [password, key]).status == 0)
    }

    /// An account whose master password is lost is recovered on a fresh data directory with its recovery
    /// code; afterwards the old password and the used code no longer work.
    @Test(arguments: Backend.cases) func anAccountIsRecoveredWithItsRecoveryCode(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-recover")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try backend.serverArguments(directory: dir.path + "/server/server"))
        let first = dir.path + "/first"
        let made = try passbox(first, ["signup", "--server", server.origin, "--email", "rue@example.org"], [password, password])
        let oldKey = try #require(made.stdout.range(of: #"P1-[0-9A-Z-]{38}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        let status = try passbox(first, ["recovery"])
        #expect(status.stdout.contains("No recovery code is set up") && status.stdout.contains("Nobody can reset it"))
        #expect(try passbox(first, ["recovery", "setup"], ["not it"]).status == 3)
        let setup = try passbox(first, ["recovery", "setup"], [password])
        #expect(setup.status == 0, "\(setup.stderr)")
        let code = try #require(setup.stdout.range(of: #"R1-[0-9A-Z-]{31}"#, options: .regularExpression).map { String(setup.stdout[$0]) })
        #expect(try passbox(first, ["recovery"]).stdout.contains("A recovery code is set up"))

        let fresh = dir.path + "/fresh", newPassword = "glacier pepper saddle orbit plume"
        let typo = try passbox(fresh, ["recover", "--server", server.origin, "--email", "rue@example.org"], [String(code.dropLast()), newPassword, newPassword])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("1 character is missing after R1"))
        let recovered = try passbox(fresh, ["recover", "--server", server.origin, "--email", "rue@example.org"], [code.lowercased(), newPassword, newPassword])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        let newKey = try #require(recovered.stdout.range(of: #"P1-[0-9A-Z-]{38}"#, options: .regularExpression).map { String(recovered.stdout[$0]) })
        #expect(newKey != oldKey && newKey.prefix(9) == oldKey.prefix(9), "a new Secret Key for the same account id")
        #expect(try passbox(fresh, ["account"]).status == 0)
        #expect(try passbox(first, ["account"]).status == 3, "every other device is signed out")
        #expect(try passbox(dir.path + "/old", ["signin", "--server", server.origin, "--email", "rue@example.org"], [password, oldKey]).status == 3)
        #expect(try passbox(dir.path + "/new", ["signin", "--server", server.origin, "--email", "rue@example.org"], [newPassword, newKey]).status == 0)
        let reused = try passbox(dir.path + "/again", ["recover", "--server", server.origin, "--email", "rue@example.org"], [code, password, password])
        #expect(reused.status == 3, "the used code no longer works")
        let activity = try passbox(fresh, ["activity"]).stdout
        #expect(activity.contains("account recovered") && activity.contains("recovery code used to fetch the recovery data"))
        #expect(activity.contains("recovery attempt with a wrong code"))
    }

    /// The parameters a device used last for an account survive its sign-out, so a server that lowers them
    /// (here, straight in its database) is refused at the next sign-in; plain http to a host that only looks
    /// like loopback is refused too.
    @Test func aServerCannotLowerTheParametersSilently() throws {
        let dir = try TemporaryDirectory("passbox-lower")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let data = dir.path + "/device"
        let made = try passbox(data, ["signup", "--server", server.origin, "--email", "lou@example.org"], [password, password])
        let key = try #require(made.stdout.range(of: #"P1-[0-9A-Z-]{38}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        #expect(try passbox(data, ["signout", "--forget-secret-key"]).status == 0)
        let db = try Database(path: dir.path + "/server/server/server.sqlite")
        try db.run("UPDATE accounts SET kdf_memory = 65536, kdf_passes = 3")
        let refused = try passbox(data, ["signin", "--server", server.origin, "--email", "lou@example.org"], [password, key])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("key-derivation parameters this device refuses (64 MiB, 3 passes, 1 lanes)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data + "/account.json"))
        // Said to be the user's own change: derived with the new parameters (which do not match here, so the
        // signature fails as a wrong password would).
        let accepted = try passbox(data, ["signin", "--server", server.origin, "--email", "lou@example.org", "--accept-new-parameters"], [password, key])
        #expect(accepted.status == 3)
        let lookalike = try passbox(data, ["signin", "--server", "http://127.0.0.1.example.org:8787", "--email", "lou@example.org"], [password, key])
        #expect(lookalike.status == 2)
        #expect(lookalike.stderr.contains("plain HTTP to another machine"))
    }

    @Test(arguments: Backend.cases) func invitationsAndClosedSignUp(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-invite")
        let store = try backend.serverArguments(directory: dir.path + "/operator/server")
        let server = try ServerProcess(dataDirectory: dir.path + "/operator", in: dir, extra: store + ["--signup", "invite"])
        let out = (try? String(contentsOf: server.out, encoding: .utf8)) ?? ""
        #expect(out.contains("new accounts need an invitation"))
        let none = try passbox(dir.path + "/a", ["signup", "--server", server.origin, "--email", "ivy@example.org"], [password, password])
        #expect(none.status == 1)
        #expect(none.stderr.contains("the invitation cannot be used: this server signs up by invitation only"))
        let invited = try passbox(dir.path + "/operator", ["server", "invite", "ivy@example.org"] + store)
        #expect(invited.status == 0, "\(invited.stderr)")
        let token = try #require(invited.stdout.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) })
        let other = try passbox(dir.path + "/a", ["signup", "--server", server.origin, "--email", "joe@example.org", "--invite"], [token, password, password])
        #expect(other.stderr.contains("it is for another email address"))
        let bogus = try passbox(dir.path + "/a", ["signup", "--server", server.origin, "--email", "ivy@example.org", "--invite"], ["nope", password, password])
        #expect(bogus.stderr.contains("no such invitation"))
        let made = try passbox(dir.path + "/a", ["signup", "--server", server.origin, "--email", "ivy@example.org", "--invite"], [token, password, password])
        #expect(made.status == 0, "\(made.stderr)")
        let again = try passbox(dir.path + "/b", ["signup", "--server", server.origin, "--email", "ivy@example.org", "--invite"], [token, password, password])
        #expect(again.stderr.contains("it was used already"))
        let german = try passbox(dir.path + "/b", ["signup", "--server", server.origin, "--email", "ivy@example.org", "--invite"], [token, password, password], language: "de")
        #expect(german.stderr.contains("sie wurde bereits verwendet"))
        #expect(!server.log.contains(token))
        server.stop()

        let closed = try ServerProcess(dataDirectory: dir.path + "/closed", in: dir, extra: ["--signup", "closed"])
        let refused = try passbox(dir.path + "/c", ["signup", "--server", closed.origin, "--email", "kim@example.org"], [password, password])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("this server takes no new accounts"))
        #expect(try passbox(dir.path + "/c", ["server", "--signup", "sometimes"]).status == 2)
    }

    @Test(arguments: Backend.cases) func theMasterPasswordChangesKeepingTheSecretKey(_ backend: Backend) throws {
        let dir = try TemporaryDirectory("passbox-passwd")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, extra: try backend.serverArguments(directory: dir.path + "/server/server"))
        let first = dir.path + "/first", second = dir.path + "/second", third = dir.path + "/third"
        let made = try passbox(first, ["signup", "--server", server.origin, "--email", "pat@example.org"], [password, password])
        let key = try #require(made.stdout.range(of: #"P1-[0-9A-Z-]{38}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        #expect(try passbox(second, ["signin", "--server", server.origin, "--email", "pat@example.org"], [password, key]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: first + "/account.json"))
        let newPassword = "harbor velvet cactus lantern quartz"

        let wrong = try passbox(first, ["passwd", "--account"], ["not it", newPassword, newPassword])
        #expect(wrong.status == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first + "/account.json")) == before, "nothing changed")
        #expect(!server.log.contains("/v1/account/password"), "a wrong current password never reaches the server")

        let changed = try passbox(first, ["passwd", "--account"], [password, newPassword, newPassword])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(changed.stdout.contains("Your Secret Key stays the same"))
        #expect(try passbox(first, ["account"]).status == 0, "this device stays signed in")
        #expect(try passbox(second, ["account"]).status == 3, "the other device is signed out")
        #expect(try passbox(third, ["signin", "--server", server.origin, "--email", "pat@example.org"], [password, key]).status == 3)
        #expect(try passbox(third, ["signin", "--server", server.origin, "--email", "pat@example.org"], [newPassword, key]).status == 0)
        #expect(try passbox(third, ["activity"]).stdout.contains("master password changed"))
        // The changed record still opens: a second change works from it.
        #expect(try passbox(first, ["passwd", "--account"], [newPassword, password, password]).status == 0)
    }

    /// Signed in, the data directory serves the account's vault: the master password (with the Secret Key
    /// kept here) opens it from the kept keyset without the network; a wrong one is refused like a wrong vault
    /// password; the vault password cannot be changed apart from the master password, and a new master
    /// password opens the same vault.
    @Test func anAccountsVaultUnlocksOfflineFromTheKeptKeyset() throws {
        let dir = try TemporaryDirectory("passbox-account-vault")
        let server = try ServerProcess(dataDirectory: dir.path + "/server", in: dir)
        let device = dir.path + "/device", other = dir.path + "/other"
        let made = try passbox(device, ["signup", "--server", server.origin, "--email", "vic@example.org"], [password, password])
        #expect(made.status == 0, "\(made.stderr)")
        let key = try #require(made.stdout.range(of: #"P1-[0-9A-Z-]{38}"#, options: .regularExpression).map { String(made.stdout[$0]) })
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: device + "/account.json"))) as? [String: Any]
        let accountID = try #require(record?["accountID"] as? String)
        #expect(FileManager.default.fileExists(atPath: "\(device)/accounts/\(accountID)/vault.pbx"), "the account's vault is made at sign-up")

        let added = try passbox(device, ["add", "login", "--title", "Mail", "--username", "vic", "--password-stdin"], [password, "mail secret 1"])
        #expect(added.status == 0, "\(added.stderr)")
        // The agent serves the account's vault as it serves a local one.
        let unlocked = try passbox(device, ["unlock", "--master"], [password])
        #expect(unlocked.status == 0, "\(unlocked.stderr)")
        #expect(try passbox(device, ["list"]).stdout.contains("Mail"), "no password once unlocked")
        #expect(try passbox(device, ["read", "passbox://local/Mail/username"]).stdout == "vic\n")
        #expect(try passbox(device, ["lock", "--stop"]).status == 0)
        server.stop()
        // No server: the account's vault still opens, from the keyset this device keeps.
        let shown = try passbox(device, ["show", "Mail", "--field", "password"], [password])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout.contains("mail secret 1"))
        let wrong = try passbox(device, ["list"], ["not the master password"])
        #expect(wrong.status == 3)
        #expect(wrong.stderr.contains("wrong password"))
        let passwd = try passbox(device, ["passwd"], [password, "some other password 9", "some other password 9"])
        #expect(passwd.status == 1)
        #expect(passwd.stderr.contains("passbox passwd --account"), "\(passwd.stderr)")
        let status = try passbox(device, ["status"])
        #expect(status.stdout.contains("accounts/\(accountID)/vault.pbx"))

        // A new master password (through a server again) opens the same vault.
        let again = try ServerProcess(dataDirectory: dir.path + "/server", in: dir, name: "again")
        var rewritten = try String(contentsOfFile: device + "/account.json", encoding: .utf8)
        rewritten = rewritten.replacingOccurrences(of: server.origin, with: again.origin)
        try rewritten.write(toFile: device + "/account.json", atomically: true, encoding: .utf8)
        let newPassword = "harbor velvet cactus lantern quartz"
        #expect(try passbox(device, ["passwd", "--account"], [password, newPassword, newPassword]).status == 0)
        #expect(try passbox(device, ["show", "Mail", "--field", "password"], [newPassword]).stdout.contains("mail secret 1"))
        #expect(try passbox(device, ["list"], [password]).status == 3, "the old master password no longer opens it")

        // Another device of the account gets an account vault of its own (items stay local until sync).
        #expect(try passbox(other, ["signin", "--server", again.origin, "--email", "vic@example.org"], [newPassword, key]).status == 0)
        let empty = try passbox(other, ["list"], [newPassword])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(!empty.stdout.contains("Mail"))
        let initialised = try passbox(other, ["init", "--insecure-test-kdf"], ["a local vault password"])
        #expect(initialised.status == 1)
        #expect(initialised.stderr.contains("already signed in as vic@example.org"))
        // A device signed in before it kept the account's vault gets it at its next unlock (and only with the
        // right master password).
        let otherRecord = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: other + "/account.json"))) as? [String: Any]
        try FileManager.default.removeItem(atPath: other + "/accounts")
        #expect(try passbox(other, ["list"], ["not the master password"]).status == 3)
        #expect(!FileManager.default.fileExists(atPath: other + "/accounts/\(accountID)/vault.pbx"), "nothing made for a wrong password")
        #expect(FileManager.default.fileExists(atPath: other + "/accounts/\(accountID)/attempts"), "the wrong try was counted")
        #expect(otherRecord?["accountID"] as? String == accountID)
        #expect(try passbox(other, ["add", "note", "--title", "Kept", "--notes-stdin"], [newPassword, "text"]).status == 0)
        #expect(try passbox(other, ["list"], [newPassword]).stdout.contains("Kept"))
    }

    /// A server that answers garbage, its own error text, weak parameters or another account's keyset is
    /// refused with a clear error, and nothing is kept on the device.
    @Test(arguments: ["garbage", "foreignText", "weakParameters", "proxyPage"])
    func hostileServersAreRefused(_ behaviour: String) throws {
        let dir = try TemporaryDirectory("passbox-hostile")
        let hostile = try HTTPServer { request in
            switch (behaviour, request.path) {
            case ("garbage", _): return HTTPResponse(status: 200, body: Array("\u{1B}]52;c;aGk=\u{07}not json".utf8))
            case ("foreignText", _): return .json(400, Array(#"{"code":"badRequest","facts":{"reason":"\u001b[31mcall +1 555 0100 for help"}}"#.utf8))
            case ("weakParameters", "/v1/prelogin"): return .json(200, Array(#"{"salt":"AAAAAAAAAAAAAAAAAAAAAA==","kdf":{"memoryKiB":1024,"passes":1,"lanes":1}}"#.utf8))
            case ("proxyPage", _): return HTTPResponse(status: 502, headers: [("Content-Type", "text/html")], body: Array("<html>Bad gateway</html>".utf8))
            default: return .json(500, [])
            }
        }
        defer { hostile.stop() }
        let data = dir.path + "/device"
        let r = try passbox(data, ["signin", "--server", "http://127.0.0.1:\(hostile.port)", "--email", "me@example.org"], [password, "P1-C59D77-4D1JQ5-B892PN-W48TZ-0WCZM-PZ5PQ"])
        #expect(r.status != 0)
        #expect(!FileManager.default.fileExists(atPath: data + "/account.json"))
        // (The server's phrase, not its digits: the port in the error text may hold "555".)
        #expect(!r.stderr.contains("555 0100") && !r.stderr.contains("for help"), "no server-chosen text")
        #expect(!r.stderr.contains("\u{1B}"), "no raw escape")
        if behaviour == "weakParameters" {
            #expect(r.stderr.contains("key-derivation parameters this device refuses (1 MiB, 1 passes, 1 lanes)"))
        } else if behaviour == "proxyPage" {
            // A proxy's "bad gateway" page: the server behind it is not reachable for now (a retry may mend it).
            #expect(r.stderr.contains("cannot be reached: HTTP 502"), "\(r.stderr)")
        } else {
            #expect(r.stderr.contains("gave an answer Passbox cannot use"), "\(r.stderr)")
        }
    }

    @Test func plainHTTPToAnotherMachineAndUnreachableServersAreRefused() throws {
        let dir = try TemporaryDirectory("passbox-insecure")
        let plain = try passbox(dir.path, ["signin", "--server", "http://vault.example.org", "--email", "me@example.org"], [password, "P1"])
        #expect(plain.status == 2)
        #expect(plain.stderr.contains("plain HTTP to another machine"))
        let closed = try passbox(dir.path, ["signin", "--server", "http://127.0.0.1:9", "--email", "me@example.org"], [password, "P1-C59D77-4D1JQ5-B892PN-W48TZ-0WCZM-PZ5PQ"])
        #expect(closed.status == 1)
        #expect(closed.stderr.contains("cannot be reached"))
        let notEmail = try passbox(dir.path, ["signup", "--server", "http://127.0.0.1:9", "--email", "nobody"], [password, password])
        #expect(notEmail.status == 2)
        #expect(notEmail.stderr.contains("nobody is not an email address"))
    }
}
