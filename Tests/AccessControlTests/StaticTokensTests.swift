@testable import AccessControl
import Crypto
import Testing

/// ``StaticTokens``: the environment form, the hash-file form, lookup by digest.
@Suite struct StaticTokensTests {
    private func sha256Hex(_ token: String) -> String {
        SHA256.hash(data: Array(token.utf8)).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
        }.joined()
    }

    private func failure(_ body: () throws -> StaticTokens) -> AccessControlError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? AccessControlError
        }
    }

    @Test func theEnvironmentFormGivesEachTokenItsScopes() throws {
        let tokens = try StaticTokens(environment: "s3cret=read+dispatch,look=read, pad/ded+tok==dispatch ")
        #expect(tokens.count == 3)
        #expect(tokens.scopes(for: "s3cret") == [.read, .dispatch])
        #expect(tokens.scopes(for: "look") == .read)
        #expect(tokens.scopes(for: "pad/ded+tok=") == .dispatch, "split at the last =: tokens may end in padding")
        #expect(tokens.scopes(for: "s3cre") == nil)
        #expect(tokens.scopes(for: "s3cret ") == nil)
        #expect(tokens.scopes(for: "S3CRET") == nil)
        #expect(tokens.scopes(for: "") == nil)
    }

    @Test func everyEntryIsSearchedSoTheLastTokenMatchesLikeTheFirst() throws {
        let list = (0..<50).map { "token\($0)=\($0 == 49 ? "dispatch" : "read")" }.joined(separator: ",")
        let tokens = try StaticTokens(environment: list)
        #expect(tokens.scopes(for: "token0") == .read)
        #expect(tokens.scopes(for: "token49") == .dispatch)
        #expect(tokens.scopes(for: "token50") == nil)
    }

    @Test func digestsAreComparedWordByWordWithoutShortCircuit() {
        let digest = TokenDigest(of: "abc")
        #expect(digest.equalityMask(TokenDigest(of: "abc")) == UInt64.max)
        #expect(digest.equalityMask(TokenDigest(of: "abd")) == 0)
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(TokenDigest(hex: expected) == digest)
        #expect(TokenDigest(hex: expected.uppercased()) == digest)
        #expect(digest.hex == expected)
        #expect(TokenDigest(hex: String(expected.dropLast())) == nil)
        #expect(TokenDigest(hex: String(expected.dropLast()) + "g") == nil)
    }

    @Test func aBlankEnvironmentValueConfiguresNoToken() throws {
        #expect(try StaticTokens(environment: "").isEmpty)
        #expect(try StaticTokens(environment: "  ").isEmpty)
        #expect(StaticTokens.none.scopes(for: "anything") == nil)
    }

    @Test(arguments: [
        ("=read", "static token 1 has an empty token"),
        ("a=read,,b=read", "static token 2 is empty"),
        ("a=read,", "static token 2 is empty"),
        ("lonely", "static token 1 has no =SCOPE"),
        ("a=read,a=dispatch", "static tokens 1 and 2 are the same token"),
        ("a b=read", "static token 1 has characters a Bearer token cannot hold"),
        ("tok\"en=read", "static token 1 has characters a Bearer token cannot hold"),
        ("to=ken=read", "static token 1 has characters a Bearer token cannot hold"),
        ("tökén=read", "static token 1 has characters a Bearer token cannot hold"),
        ("sha256:abcd=read", "sha256: hashes belong in the token file"),
        ("a=", "static token 1: a scope list has an empty scope name"),
        ("a=write", "static token 1: a scope name that is not known (not shown"),
    ])
    func malformedEnvironmentEntriesAreErrorsNamingThePosition(text: String, expected: String) {
        let error = failure { try StaticTokens(environment: text) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "accepted")")
    }

    @Test func theHashFileFormKeepsOnlyDigests() throws {
        let file = """
        # operators: read only
        sha256:\(sha256Hex("look-token"))=read   # the dashboard
        sha256:\(sha256Hex("ci").uppercased())=read+dispatch, sha256:\(sha256Hex("deploy"))=dispatch

        """
        let tokens = try StaticTokens(hashFile: file)
        #expect(tokens.count == 3)
        #expect(tokens.scopes(for: "look-token") == .read)
        #expect(tokens.scopes(for: "ci") == [.read, .dispatch])
        #expect(tokens.scopes(for: "deploy") == .dispatch)
        #expect(tokens.scopes(for: sha256Hex("ci")) == nil, "the hash itself is not a token")
    }

    /// Windows line endings (from a review: "\r\n" is one Character, so the file was one line,
    /// and the first comment hid every token after it).
    @Test func aHashFileWithWindowsLineEndingsIsReadLineByLine() throws {
        let file = "sha256:\(sha256Hex("a"))=read  # reader\r\nsha256:\(sha256Hex("b"))=read+dispatch  # writer\r\n#last\r\n"
        let tokens = try StaticTokens(hashFile: file)
        #expect(tokens.count == 2)
        #expect(tokens.scopes(for: "b") == [.read, .dispatch])
        #expect(throws: AccessControlError.self) { try StaticTokens(hashFile: "#comment\r\nplain=read\r\n") }
        do {
            _ = try StaticTokens(hashFile: "#comment\r\nplain=read\r\n")
        } catch {
            #expect(error.message.contains("line 2"), "\(error.message)")
        }
    }

    @Test func anEmptyOrCommentOnlyHashFileConfiguresNoToken() throws {
        #expect(try StaticTokens(hashFile: "").isEmpty)
        #expect(try StaticTokens(hashFile: "# nothing yet\n\n   \n").isEmpty)
    }

    @Test(arguments: [
        ("s3cret=read", "line 1 of the token file is not sha256:<64 hex digits>=SCOPES"),
        ("sha256:abc=read", "line 1 of the token file is not sha256"),
        ("# ok\nsha512:\(String(repeating: "a", count: 64))=read", "line 2 of the token file is not sha256"),
        ("sha256:\(String(repeating: "a", count: 64))=admin", "line 1 of the token file: a scope name that is not known (not shown"),
        ("sha256:\(String(repeating: "a", count: 64))", "line 1 of the token file has no =SCOPE"),
        ("sha256:\(String(repeating: "a", count: 64))=read\nsha256:\(String(repeating: "A", count: 64))=dispatch",
         "lines 1 and 2 of the token file hold the same hash"),
    ])
    func malformedHashFileLinesAreErrorsNamingTheLine(text: String, expected: String) {
        let error = failure { try StaticTokens(hashFile: text) }
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "accepted")")
    }

    @Test func aFileEntryRoundTripsThroughTheHashFileForm() throws {
        let line = try StaticTokens.fileEntry(token: "my-token~1", scopes: [.read, .dispatch])
        #expect(line == "sha256:\(sha256Hex("my-token~1"))=read+dispatch")
        #expect(try StaticTokens(hashFile: line).scopes(for: "my-token~1") == [.read, .dispatch])
        #expect(throws: AccessControlError.self) { try StaticTokens.fileEntry(token: "a b", scopes: .read) }
        #expect(throws: AccessControlError.self) { try StaticTokens.fileEntry(token: "ab", scopes: []) }
    }

    @Test func mergingTheEnvironmentAndTheFileRefusesATokenInBoth() throws {
        let environment = try StaticTokens(environment: "shared=read,own=dispatch")
        let file = try StaticTokens(hashFile: "sha256:\(sha256Hex("filed"))=read")
        let merged = try environment.merged(with: file)
        #expect(merged.scopes(for: "filed") == .read)
        #expect(merged.scopes(for: "own") == .dispatch)
        let clash = try StaticTokens(hashFile: "sha256:\(sha256Hex("shared"))=dispatch")
        #expect(throws: AccessControlError.self) { try environment.merged(with: clash) }
    }
}
