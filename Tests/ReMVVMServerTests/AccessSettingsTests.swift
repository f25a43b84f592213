import Configuration
import Glibc
import AccessControl
import Crypto
import Foundation
import HTTPTestSupport
import Testing
@testable import ReMVVMServerCommand

/// How `remvvm-server` reads its access-control settings: secrets from the environment or files,
/// never flags; a configuration that cannot be used stops the start with a message naming the
/// setting, never the secret.
@Suite struct AccessSettingsTests {
    /// Where a test's files go; removed with them when the test ends.
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "remvvm-access")
    }

    private func load(_ environment: [String: String]) async throws -> ServerSettings {
        try await ServerSettings.load(flags: [:], environment: environment, configPath: nil)
    }

    private func file(_ text: String) throws -> String {
        let path = directory.path + "/file-\(UUID().uuidString)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The error `environment` makes loading throw, as text.
    private func failure(_ environment: [String: String]) async -> String {
        do {
            _ = try await load(environment)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test func byDefaultAccessControlIsOff() async throws {
        let settings = try await load([:])
        #expect(!settings.accessControl.isEnabled)
        #expect(ServerSettings.defaultText(.jwtLeewaySeconds) == "60")
    }

    @Test func staticTokensComeFromTheEnvironmentAndAreForgottenOnceBuilt() async throws {
        let settings = try await load(["REMVVM_AUTH_TOKENS": "s3cret-token=read+dispatch,look-only=read"])
        let authorizer = settings.accessControl
        #expect(authorizer.staticTokens.count == 2)
        #expect(authorizer.authorize(credential: "Bearer s3cret-token", needs: .dispatch) == .allowed)
        #expect(authorizer.authorize(credential: "Bearer look-only", needs: .dispatch) == .forbidden(needs: .dispatch))
        #expect(settings.access.authTokens.isEmpty, "the secret is not kept")
        #expect(settings.values[.authTokens] == .string(""), "values never hold a secret")
        #expect(!"\(authorizer)".contains("s3cret"))
    }

    @Test func theTokenFileHoldsHashesAndAddsToTheEnvironment() async throws {
        let path = try file("# readers\n" + (try StaticTokens.fileEntry(token: "from-file", scopes: .read)) + "\n")
        let settings = try await load(["REMVVM_AUTH_TOKENS": "from-env=dispatch", "REMVVM_AUTH_TOKEN_FILE": path])
        #expect(settings.accessControl.authorize(credential: "Bearer from-file", needs: .read) == .allowed)
        #expect(settings.accessControl.authorize(credential: "Bearer from-env", needs: .dispatch) == .allowed)
        let plain = try file("from-file=read\n")
        let error = await failure(["REMVVM_AUTH_TOKEN_FILE": plain])
        #expect(error.contains("authTokenFile") && error.contains("line 1"), "\(error)")
        #expect(!error.contains("from-file"))
    }

    /// A token file that is named but holds no token (a secret mount that came up empty) stops
    /// the start: it must not leave every route open.
    @Test func aTokenFileWithoutTokensIsRefused() async throws {
        for text in ["", "\n", "# only a comment\n\n"] {
            let error = await failure(["REMVVM_AUTH_TOKEN_FILE": try file(text)])
            #expect(error.contains("authTokenFile") && error.contains("holds no token"), "\(text.debugDescription): \(error)")
        }
    }

    @Test func tokensSetToBlanksOnlyAreRefused() async throws {
        for text in [" ", "\n", " \t "] {
            let error = await failure(["REMVVM_AUTH_TOKENS": text])
            #expect(error.contains("invalid setting authTokens") && error.contains("set but empty"), "\(text.debugDescription): \(error)")
            let json = #"{"authTokens": "\#(text.debugDescription.dropFirst().dropLast())"}"#
            let fromFile = try await refusal(ofConfig: json)
            #expect(fromFile.contains("invalid setting authTokens") && fromFile.contains("holds no token"), "\(json): \(fromFile)")
        }
    }

    /// The config file's error for `json`, as text ("no error" when it was accepted).
    private func refusal(ofConfig json: String) async throws -> String {
        let path = try file(json)
        do {
            _ = try await ServerSettings.load(flags: [:], environment: [:], configPath: path)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    /// An access-control variable set but empty would override the config file and leave the
    /// server open (from a review: REMVVM_AUTH_TOKENS= over a config file's tokens served every
    /// route to anyone, without a warning): refused, naming the variable.
    @Test func anEmptyAccessVariableIsRefusedInsteadOfOverridingTheConfigFile() async throws {
        let path = try file(#"{"authTokens": "cfgtok=read+dispatch"}"#)
        let configured = try await ServerSettings.load(flags: [:], environment: [:], configPath: path)
        #expect(configured.accessControl.isEnabled)
        for name in ["AUTH_TOKENS", "AUTH_TOKEN_FILE", "JWT_HS256_SECRET", "JWT_HS256_SECRET_FILE", "JWT_PUBLIC_KEY_FILE", "JWT_ISSUER", "JWT_AUDIENCE"] {
            for value in ["", " "] {
                do {
                    let settings = try await ServerSettings.load(flags: [:], environment: ["REMVVM_\(name)": value], configPath: path)
                    Issue.record("REMVVM_\(name)=\(value.debugDescription) was accepted (access control on: \(settings.accessControl.isEnabled))")
                } catch {
                    #expect("\(error)".contains("REMVVM_\(name) is set but empty"), "\(error)")
                }
            }
        }
        // A flag wins over the variable: the empty one then changes nothing.
        let flagged = try await ServerSettings.load(
            flags: [AbsoluteConfigKey(["jwtIssuer"]): ConfigValue(.string("https://issuer.example"), isSecret: false)],
            environment: ["REMVVM_JWT_ISSUER": "", "REMVVM_JWT_HS256_SECRET": AccessTokens.secret],
            configPath: path
        )
        #expect(flagged.accessControl.jwt?.issuer == "https://issuer.example")
    }

    /// A secret given to a file setting by mistake is not shown when no file has that name.
    @Test func aFileSettingThatNamesNoFileDoesNotShowItsValue() async throws {
        let secret = "MySuperSecretHmacKeyThatIs32BytesLong!!"
        for name in ["JWT_HS256_SECRET_FILE", "AUTH_TOKEN_FILE", "JWT_PUBLIC_KEY_FILE"] {
            let error = await failure(["REMVVM_\(name)": secret])
            #expect(error.contains("names no file") && !error.contains("MySuper"), "\(error)")
        }
        let error = await failure(["REMVVM_AUTH_TOKEN_FILE": directory.path])
        #expect(error.contains("is a directory"), "\(error)")
    }

    /// A secret from a pipe, as a shell's process substitution gives it (`<(printf …)`, a
    /// /dev/fd path): FileManager's read returned nothing for it.
    @Test func aSecretFileMayBeAPipe() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let secret = Array("0123456789abcdef0123456789abcdef-pipe\n".utf8)
        _ = secret.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        defer { close(ends[0]) }
        let settings = try await load(["REMVVM_JWT_HS256_SECRET_FILE": "/dev/fd/\(ends[0])"])
        #expect(settings.accessControl.jwt != nil)
    }

    @Test func badStaticTokensAreRefusedWithoutShowingThem() async {
        for bad in ["s3cret-token", "s3cret-token=admin", "s3cret token=read", "=read", "s3cret-token=read,s3cret-token=dispatch"] {
            let error = await failure(["REMVVM_AUTH_TOKENS": bad])
            #expect(error.contains("invalid setting authTokens (REMVVM_AUTH_TOKENS, or config file)"), "\(bad): \(error)")
            #expect(!error.contains("s3cret"), "\(bad): \(error)")
        }
    }

    @Test func aShortHS256SecretIsRefusedWithoutShowingIt() async {
        let error = await failure(["REMVVM_JWT_HS256_SECRET": "too-short-secret"])
        #expect(error.contains("jwtHs256Secret") && error.contains("at least 32"), "\(error)")
        #expect(!error.contains("too-short-secret"))
    }

    @Test func theHS256SecretMayComeFromAFile() async throws {
        let path = try file(AccessTokens.secret + "\n")
        let settings = try await load(["REMVVM_JWT_HS256_SECRET_FILE": path])
        let token = AccessTokens.jwt(scope: "read")
        #expect(settings.accessControl.authorize(credential: "Bearer \(token)", needs: .read) == .allowed,
                "the file's trailing newline is not part of the secret")
        let both = await failure(["REMVVM_JWT_HS256_SECRET_FILE": path, "REMVVM_JWT_HS256_SECRET": AccessTokens.secret])
        #expect(both.contains("not both"))
        #expect(!both.contains(AccessTokens.secret))
    }

    @Test func aPublicKeyFileAcceptsES256Tokens() async throws {
        let path = try file(P256.Signing.PrivateKey().publicKey.pemRepresentation)
        let settings = try await load(["REMVVM_JWT_PUBLIC_KEY_FILE": path, "REMVVM_JWT_ISSUER": "https://issuer.example"])
        #expect(settings.accessControl.jwt?.keys.map(\.algorithm) == [.es256])
        #expect(settings.accessControl.jwt?.issuer == "https://issuer.example")
    }

    /// Named by the setting, and by the path once a file is there (a value that names no file is
    /// not shown: see aFileSettingThatNamesNoFileDoesNotShowItsValue).
    @Test func unusableKeyFilesAreRefusedNamingTheSettingAndThePath() async throws {
        let missing = await failure(["REMVVM_JWT_PUBLIC_KEY_FILE": "/nonexistent/key.pem"])
        #expect(missing.contains("jwtPublicKeyFile") && missing.contains("names no file (its 20 characters"), "\(missing)")
        let notAKey = try file("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        let garbage = await failure(["REMVVM_JWT_PUBLIC_KEY_FILE": notAKey])
        #expect(garbage.contains("jwtPublicKeyFile") && garbage.contains("neither a P-256") && garbage.contains(notAKey), "\(garbage)")
        let unreadableSecret = await failure(["REMVVM_JWT_HS256_SECRET_FILE": "/nonexistent/secret"])
        #expect(unreadableSecret.contains("jwtHs256SecretFile"))
    }

    @Test func anIssuerWithoutAKeyIsAMistake() async {
        let error = await failure(["REMVVM_JWT_AUDIENCE": "remvvm"])
        #expect(error.contains("jwtAudience") && error.contains("no JWT key"), "\(error)")
    }

    @Test func theLeewayIsChecked() async throws {
        let key = try file(AccessTokens.secret)
        let settings = try await load(["REMVVM_JWT_HS256_SECRET_FILE": key, "REMVVM_JWT_LEEWAY_SECONDS": "5"])
        #expect(settings.accessControl.jwt?.leeway == .seconds(5))
        #expect(await failure(["REMVVM_JWT_LEEWAY_SECONDS": "-1"]).contains("jwtLeewaySeconds"))
    }

    @Test func secretsHaveNoFlagsAndFilePathsDo() throws {
        #expect(throws: (any Error).self) { _ = try ServeCommand.parse(["--auth-tokens", "s3cret=read"]) }
        #expect(throws: (any Error).self) { _ = try ServeCommand.parse(["--jwt-hs256-secret", "0123456789abcdef0123456789abcdef"]) }
        let command = try ServeCommand.parse([
            "--auth-token-file", "/run/secrets/tokens", "--jwt-hs256-secret-file", "/run/secrets/hs256",
            "--jwt-public-key-file", "/etc/remvvm/jwt.pem", "--jwt-issuer", "https://issuer.example",
            "--jwt-audience", "remvvm", "--jwt-leeway-seconds", "30",
        ])
        #expect(command.authTokenFile == "/run/secrets/tokens")
        #expect(command.jwtLeewaySeconds == 30)
    }
}
