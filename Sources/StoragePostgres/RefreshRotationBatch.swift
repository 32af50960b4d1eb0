import IdentityCore
import PostgresNIO

/// One presentation of a refresh token, as a row of a ``RefreshRotationBatch``.
struct RefreshRotation: Sendable {
    let hash: [UInt8]
    let clientID: String
    let newHash: [UInt8]
    let newExpiresAt: Double
    let at: Double
}

/// Refresh-token rotations, any number of them, in one statement: each current token is
/// marked used and its replacement stored in its family, for one round trip and one commit
/// for the lot. A row whose token is not current (used, revoked, expired, unknown, another
/// client's) is answered `nil` with nothing written for it, and its caller classifies it on
/// its own (``PostgresStorage/rotateRefreshToken(hash:clientID:newHash:newExpiresAt:at:)``):
/// replays are rare, and revoking a family takes statements of its own.
///
/// Each token is consumed by one conditional `UPDATE`, as alone: of concurrent presentations
/// (in one batch, or in batches on several instances) exactly one finds it unused; the others
/// wait for that row, find it used, and are answered `nil`. A replacement needs its family,
/// which its foreign key checks: a family deleted meanwhile fails the whole statement, and
/// each row is then tried alone.
struct RefreshRotationBatch: PostgresPreparedStatement {
    static let name = "latchkey_refresh_rotation_batch"
    static let sql = """
        WITH batch AS MATERIALIZED (
            SELECT * FROM unnest($1::bytea[], $2::text[], $3::bytea[], $4::double precision[], $5::double precision[])
                WITH ORDINALITY AS b(hash, client_id, new_hash, new_expires_at, at, i)
        ), rotated AS (
            UPDATE refresh_tokens t SET used_at = b.at
            FROM batch b, refresh_token_families f
            WHERE t.token_hash = b.hash AND f.id = t.family_id AND t.client_id = b.client_id
                AND t.used_at IS NULL AND f.revoked_at IS NULL AND t.expires_at > b.at
            RETURNING b.i, t.token_hash, t.family_id, t.user_id, t.client_id, t.scopes, t.audience, t.authenticated_at, t.user_verified,
                t.password_sign_in, t.issued_at, t.expires_at
        ), rotated_first AS (
            UPDATE refresh_token_families f SET used_at = b.at
            FROM batch b
            WHERE f.token_hash = b.hash AND f.client_id = b.client_id
                AND f.used_at IS NULL AND f.revoked_at IS NULL AND f.expires_at > b.at
            RETURNING b.i, f.token_hash, f.id, f.user_id, f.client_id, f.scopes, f.audience, f.authenticated_at, f.user_verified,
                f.password_sign_in, f.issued_at, f.expires_at
        ), previous AS (
            SELECT * FROM rotated UNION ALL SELECT * FROM rotated_first
        ), replaced AS (
            INSERT INTO refresh_tokens (
                token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at,
                user_verified, password_sign_in, issued_at, expires_at, used_at
            )
            SELECT b.new_hash, p.family_id, p.user_id, p.client_id, p.scopes, p.audience, p.authenticated_at,
                p.user_verified, p.password_sign_in, b.at, b.new_expires_at, NULL
            FROM previous p JOIN batch b ON b.i = p.i
        )
        SELECT i, token_hash, family_id, user_id, client_id, scopes, audience, authenticated_at, user_verified, password_sign_in,
            issued_at, expires_at
        FROM previous
        """
    typealias Row = PostgresRandomAccessRow

    let rows: [RefreshRotation]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(rows.map { ByteBuffer(bytes: $0.hash) })
        bindings.append(rows.map(\.clientID))
        bindings.append(rows.map { ByteBuffer(bytes: $0.newHash) })
        bindings.append(rows.map(\.newExpiresAt))
        bindings.append(rows.map(\.at))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { row.makeRandomAccess() }

    /// Each row's rotated token, in the rows' order: `nil` where nothing was rotated.
    static func outcomes(_ answers: [Row], count: Int) throws -> [RefreshTokenRecord?] {
        var outcomes = [RefreshTokenRecord?](repeating: nil, count: count)
        for row in answers {
            let position = Int(try row.integer("i"))
            guard (1...count).contains(position), outcomes[position - 1] == nil else {
                throw PostgresStorageError(.unreadableRow, "a rotation batch answered row \(position) of \(count) twice or out of range")
            }
            outcomes[position - 1] = try RefreshTokenRecord(stored: row)
        }
        return outcomes
    }
}
