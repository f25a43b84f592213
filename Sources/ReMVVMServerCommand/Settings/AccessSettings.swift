import AccessControl
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The access-control settings as configured: where the tokens and JWT keys come from.
///
/// The two secrets (`authTokens`, `jwtHs256Secret`) come from the environment or the config file,
/// never from a flag (a command line is visible to every user of the machine in `ps`); files hold
/// the rest. ``authorizer()`` builds what the server checks requests with, and the settings then
/// forget the secrets: they are never shown, compared or logged.
struct AccessSettings {
    /// Static tokens, `TOKEN=SCOPE[+SCOPE],…`. Secret.
    var authTokens = ""
    /// A file of `sha256:<hex>=SCOPES` lines: static tokens kept as hashes.
    var authTokenFile = ""
    /// The HS256 shared secret (its UTF-8 bytes, at least 32). Secret.
    var jwtHs256Secret = ""
    /// A file holding the HS256 secret (a trailing newline is not part of it).
    var jwtHs256SecretFile = ""
    /// A PEM file with the public key of ES256 (P-256) or RS256 (RSA) JWTs.
    var jwtPublicKeyFile = ""
    /// The `iss` JWTs must carry; empty: not checked.
    var jwtIssuer = ""
    /// The audience JWTs' `aud` must name; empty: not checked.
    var jwtAudience = ""
    /// How far `exp` and `nbf` may be off, in seconds.
    var jwtLeewaySeconds = Int(JWTVerifier.defaultLeeway.components.seconds)

    /// The allowed leeway: up to an hour.
    static let jwtLeewaySecondsRange = 0...3_600

    /// What checks requests: static tokens from ``authTokens`` and ``authTokenFile``, JWTs when a
    /// key is configured; disabled when nothing is. Throws ``SettingsError`` naming the setting,
    /// with a message that never contains a token, a secret or a key.
    func authorizer() throws(SettingsError) -> BearerAuthorizer {
        // Set to blanks only (a secret that came up empty): refused like an empty token file,
        // rather than leaving every route open.
        if !authTokens.isEmpty, authTokens.allSatisfy(\.isWhitespace) {
            throw SettingsError(key: .authTokens, message: "holds no token (only blanks); set TOKEN=SCOPE[+SCOPE],... or unset it")
        }
        var tokens = try checked(.authTokens) { () throws(AccessControlError) in try StaticTokens(environment: authTokens) }
        if !authTokenFile.isEmpty {
            let text = try Self.read(authTokenFile, for: .authTokenFile)
            let fromFile = try checked(.authTokenFile, prefix: "\(authTokenFile): ") { () throws(AccessControlError) in
                try StaticTokens(hashFile: text)
            }
            // A file named but empty (a secret mount that came up empty) must not leave the
            // server open: without tokens there would be no access control at all.
            guard !fromFile.isEmpty else {
                throw SettingsError(key: .authTokenFile, message: "\(authTokenFile) holds no token (only blank or comment lines); add sha256:<hex>=SCOPES lines, or unset authTokenFile")
            }
            tokens = try checked(.authTokenFile, prefix: "\(authTokenFile): ") { () throws(AccessControlError) in
                try tokens.merged(with: fromFile)
            }
        }
        var keys: [JWTKey] = []
        if let found = try hs256Secret() {
            keys.append(try checked(found.key) { () throws(AccessControlError) in try JWTKey.hs256(secret: found.secret) })
        }
        if !jwtPublicKeyFile.isEmpty {
            let pem = try Self.read(jwtPublicKeyFile, for: .jwtPublicKeyFile)
            keys.append(try checked(.jwtPublicKeyFile, prefix: "\(jwtPublicKeyFile): ") { () throws(AccessControlError) in
                try JWTKey.publicKey(pem: pem)
            })
        }
        guard !keys.isEmpty else {
            for (key, value) in [(ServerSettings.Key.jwtIssuer, jwtIssuer), (.jwtAudience, jwtAudience)] where !value.isEmpty {
                throw SettingsError(key: key, message: "is set, but no JWT key is (jwtHs256Secret, jwtHs256SecretFile or jwtPublicKeyFile)")
            }
            return BearerAuthorizer(staticTokens: tokens)
        }
        let verifier = try checked(.jwtLeewaySeconds) { () throws(AccessControlError) in
            try JWTVerifier(
                keys: keys,
                issuer: jwtIssuer.isEmpty ? nil : jwtIssuer,
                audience: jwtAudience.isEmpty ? nil : jwtAudience,
                leeway: .seconds(jwtLeewaySeconds)
            )
        }
        return BearerAuthorizer(staticTokens: tokens, jwt: verifier)
    }

    /// The HS256 secret and the setting it came from, nil when neither is set.
    private func hs256Secret() throws(SettingsError) -> (secret: String, key: ServerSettings.Key)? {
        switch (jwtHs256Secret.isEmpty, jwtHs256SecretFile.isEmpty) {
        case (true, true):
            return nil
        case (false, true):
            return (Self.withoutTrailingNewlines(jwtHs256Secret), .jwtHs256Secret)
        case (true, false):
            return (Self.withoutTrailingNewlines(try Self.read(jwtHs256SecretFile, for: .jwtHs256SecretFile)), .jwtHs256SecretFile)
        case (false, false):
            throw SettingsError(key: .jwtHs256SecretFile, message: "set jwtHs256Secret or jwtHs256SecretFile, not both")
        }
    }

    /// `make()`, with an ``AccessControl/AccessControlError`` turned into a ``SettingsError`` for
    /// `key` (its message is free of secrets by contract).
    private func checked<Value>(
        _ key: ServerSettings.Key, prefix: String = "", _ make: () throws(AccessControlError) -> Value
    ) throws(SettingsError) -> Value {
        do {
            return try make()
        } catch {
            throw SettingsError(key: key, message: prefix + error.message)
        }
    }

    /// The text of the file at `path`. An error names the setting, never the content, and not
    /// the path either when no file is there: it may be the secret itself, given to the file
    /// setting by mistake (`REMVVM_JWT_HS256_SECRET_FILE` for `REMVVM_JWT_HS256_SECRET`).
    private static func read(_ path: String, for key: ServerSettings.Key) throws(SettingsError) -> String {
        var status = stat()
        if stat(path, &status) != 0 {
            guard errno == ENOENT || errno == ENOTDIR || errno == ENAMETOOLONG else {
                // There is something at the path (a directory on the way may not be searchable).
                throw SettingsError(key: key, message: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            throw SettingsError(
                key: key,
                message: "names no file (its \(path.count) characters are not shown: if they are the secret itself, give it to the setting without File)"
            )
        }
        guard status.st_mode & S_IFMT != S_IFDIR else {
            throw SettingsError(key: key, message: "\(path) is a directory, not a file")
        }
        // A FileHandle reads pipes too (`--jwt-hs256-secret-file <(printf …)`, /dev/fd/N).
        let data: Data?
        do {
            data = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)).readToEnd()
        } catch {
            throw SettingsError(key: key, message: "cannot read \(path) (is it readable by this user?)")
        }
        guard let text = String(data: data ?? Data(), encoding: .utf8) else {
            throw SettingsError(key: key, message: "\(path) is not UTF-8 text")
        }
        return text
    }

    /// `text` without the line break `echo` or an editor adds at its end.
    private static func withoutTrailingNewlines(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last == "\n" || last == "\r" || last == "\r\n" { text.removeLast() }
        return String(text)
    }
}
