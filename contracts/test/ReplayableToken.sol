// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Test-only token whose permit nonce never advances and whose permit is a no-op: the one way to
/// present the settlement contract with the same binding digest twice and reach its `usedHashes` check.
contract ReplayableToken {
    mapping(address => uint256) public balanceOf;

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
    }

    function nonces(address) external pure returns (uint256) {
        return 0;
    }

    function DOMAIN_SEPARATOR() external pure returns (bytes32) {
        return keccak256("ReplayableToken");
    }

    function permit(address, address, uint256, uint256, uint8, bytes32, bytes32) external {}

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        return true;
    }
}
